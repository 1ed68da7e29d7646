import { useId } from 'react';

/** One line of a chart. */
export interface ChartLine {
  label: string;
  values: number[];
  /** A CSS class giving its colour (`line-a` … `line-d`). */
  tone: 'a' | 'b' | 'c' | 'd';
}

/**
 * A small line chart in SVG: the lines over the window's buckets, the peak on the y axis, the first and last
 * time on the x axis. Screen readers get a summary (peak and latest of each line) as the image's label.
 */
export function Chart({
  title,
  lines,
  buckets,
  format = (value) => String(value),
}: {
  title: string;
  lines: ChartLine[];
  buckets: string[];
  format?: (value: number) => string;
}) {
  const id = useId();
  const width = 320;
  const height = 110;
  const pad = { left: 44, right: 6, top: 8, bottom: 20 };
  const peak = Math.max(1, ...lines.flatMap((line) => line.values));
  const x = (index: number) => pad.left + (index / Math.max(1, buckets.length - 1)) * (width - pad.left - pad.right);
  const y = (value: number) => pad.top + (1 - value / peak) * (height - pad.top - pad.bottom);
  const summary = lines
    .map(
      (line) => `${line.label}: latest ${format(line.values.at(-1) ?? 0)}, peak ${format(Math.max(0, ...line.values))}`,
    )
    .join('; ');
  const time = (iso: string | undefined) =>
    iso ? new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : '';
  return (
    <figure className="chart">
      <figcaption id={id}>{title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={id} aria-description={summary}>
        <title>{`${title}. ${summary}`}</title>
        <line x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} className="axis" />
        <line x1={pad.left} x2={width - pad.right} y1={y(peak)} y2={y(peak)} className="grid" />
        <text x={pad.left - 4} y={y(peak) + 4} className="tick" textAnchor="end">
          {format(peak)}
        </text>
        <text x={pad.left - 4} y={y(0)} className="tick" textAnchor="end">
          0
        </text>
        <text x={pad.left} y={height - 4} className="tick">
          {time(buckets[0])}
        </text>
        <text x={width - pad.right} y={height - 4} className="tick" textAnchor="end">
          {time(buckets.at(-1))}
        </text>
        {lines.map((line) => (
          <polyline
            key={line.label}
            className={`line line-${line.tone}`}
            points={line.values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(' ')}
          />
        ))}
      </svg>
      <ul className="legend">
        {lines.map((line) => (
          <li key={line.label}>
            <span className={`swatch line-${line.tone}`} aria-hidden="true" />
            {line.label}: <strong>{format(line.values.at(-1) ?? 0)}</strong>
          </li>
        ))}
      </ul>
    </figure>
  );
}
