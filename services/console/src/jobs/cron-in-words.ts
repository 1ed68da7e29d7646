const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const NAMES: Record<string, string> = {
  sun: '0',
  mon: '1',
  tue: '2',
  wed: '3',
  thu: '4',
  fri: '5',
  sat: '6',
  jan: '1',
  feb: '2',
  mar: '3',
  apr: '4',
  may: '5',
  jun: '6',
  jul: '7',
  aug: '8',
  sep: '9',
  oct: '10',
  nov: '11',
  dec: '12',
};

const two = (value: string) => value.padStart(2, '0');
const isNumber = (value: string) => /^\d+$/.test(value);

/** A list field (`1,15`, `1-5`, `MON-FRI`) in words, with `name` turning one value into its name. */
function listInWords(field: string, name: (value: number) => string): string {
  const parts = field
    .toLowerCase()
    .replace(/[a-z]{3}/g, (word) => NAMES[word] ?? word)
    .split(',')
    .map((part) => {
      const [range, step] = part.split('/');
      const [from, to] = range.split('-');
      const span = to !== undefined ? `${name(Number(from))} to ${name(Number(to))}` : name(Number(from));
      return step ? `every ${step} from ${span}` : span;
    });
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0];
}

/** When in the day: "at 03:30", "every 10 minutes", "every hour at minute 5", "at minute 0 of hours 9 to 17". */
function timeInWords(second: string | undefined, minute: string, hour: string): string {
  const seconds = second === undefined || second === '0' ? '' : second;
  if (seconds) {
    const every = /^\*\/(\d+)$/.exec(seconds);
    const secondsText = seconds === '*' ? 'every second' : every ? `every ${every[1]} seconds` : `at second ${seconds}`;
    if (minute === '*' && hour === '*') return secondsText;
    return `${secondsText}, ${timeInWords(undefined, minute, hour)}`;
  }
  const minuteStep = /^\*\/(\d+)$/.exec(minute);
  const hourStep = /^\*\/(\d+)$/.exec(hour);
  if (minute === '*' && hour === '*') return 'every minute';
  if (minuteStep && hour === '*') return `every ${minuteStep[1]} minutes`;
  if (isNumber(minute) && hour === '*') return `every hour at minute ${Number(minute)}`;
  if (isNumber(minute) && isNumber(hour)) return `at ${two(hour)}:${two(minute)}`;
  if (isNumber(minute) && hourStep) return `every ${hourStep[1]} hours at minute ${Number(minute)}`;
  if (isNumber(minute) && /^[\d,-]+$/.test(hour)) {
    if (hour.includes('-') && !hour.includes(','))
      return `at minute ${Number(minute)} of hours ${listInWords(hour, String)}`;
    return `at ${hour
      .split(',')
      .map((value) => `${two(value)}:${two(minute)}`)
      .join(', ')}`;
  }
  return `at minute ${minute} of hour ${hour}`;
}

/**
 * A cron pattern (5 fields, or 6 with seconds first, as Berth's scheduler takes them) in words, with its zone:
 * `30 3 * * *` in Europe/Paris → "every day at 03:30 (Europe/Paris)". Patterns it cannot read are answered as they are.
 */
export function cronInWords(pattern: string, timeZone: string): string {
  const fields = pattern.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return `${pattern} (${timeZone})`;
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = fields.length === 6 ? fields : [undefined, ...fields];
  const time = timeInWords(second, minute!, hour!);
  const days: string[] = [];
  if (dayOfMonth !== '*') days.push(`on day ${listInWords(dayOfMonth!, String)} of the month`);
  if (dayOfWeek !== '*') days.push(`on ${listInWords(dayOfWeek!, (value) => DAYS[value % 7] ?? String(value))}`);
  const months = month === '*' ? '' : ` in ${listInWords(month!, (value) => MONTHS[value - 1] ?? String(value))}`;
  const daily = days.length === 0 && /^at \d/.test(time) ? 'every day ' : '';
  // Cron fires when either day field matches, when both are restricted.
  return `${daily}${time}${days.length ? ` ${days.join(' or ')}` : ''}${months} (${timeZone})`;
}
