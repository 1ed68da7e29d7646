/** A state as a coloured label; the text itself says the state (colour is never the only cue). */
export function Badge({ value }: { value: string }) {
  const tone = /^(processed|delivered|ready|enabled|done|ok|succeeded|completed|resolved)$/.test(value)
    ? 'good'
    : /^(set-aside|failed|unreachable|disabled|exhausted|unrecoverable|invalid|refused|gone)$/.test(value)
      ? 'bad'
      : /^(retrying|retry|not-ready|skipped|pending|previewed|superseded|lease-ran-out|delayed|waiting|acknowledged|cancelled)$/.test(
            value,
          )
        ? 'warn'
        : 'neutral';
  return <span className={`badge badge-${tone}`}>{value}</span>;
}
