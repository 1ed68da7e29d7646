import { createLogger, ERROR_MARKER, prettyLine } from './index';

/** The JSON lines a real logger writes, for `prettyLine` to format. */
function records(log: (logger: ReturnType<typeof createLogger>) => void): string[] {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'scheduler',
    level: 'debug',
    destination: { write: (line: string) => void lines.push(line) },
  });
  log(logger);
  return lines;
}

describe('prettyLine', () => {
  it('writes one line per record with the fields inline, and no service, pid or hostname', () => {
    const [json] = records((logger) =>
      logger.info(
        { holder: 'scheduler-0:42:ab', revision: 3, cron: { name: 'A B' } },
        'Became leader (acquired a free lease)',
      ),
    );
    const line = prettyLine(json, { colors: false });
    expect(line).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} {3}INFO {2}Became leader \(acquired a free lease\) holder=scheduler-0:42:ab revision=3 cron=\{"name":"A B"\}$/,
    );
    expect(line).not.toContain('\n');
    expect(line).not.toMatch(/service|pid|hostname/);
  });

  it('marks error and fatal lines, and shows an error as its type, message and top stack frame', () => {
    const error = new TypeError('boom', { cause: new Error('socket closed') });
    const [failed, fatal] = records((logger) => {
      logger.error({ err: error, cron: 'ReportCronJob' }, 'Tick pass failed');
      logger.fatal('Scheduler crashed');
    });
    const line = prettyLine(failed, { colors: false });
    expect(line).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} ${ERROR_MARKER} ERROR Tick pass failed err="TypeError: boom: socket closed \\(at .*pretty-line\\.test\\.ts:\\d+:\\d+\\)\\)" cron=ReportCronJob$`,
      ),
    );
    expect(line).not.toContain('\n');
    expect(prettyLine(fatal, { colors: false })).toMatch(new RegExp(`${ERROR_MARKER} FATAL Scheduler crashed$`));
  });

  it('colours the level, and whole error and fatal lines in red', () => {
    const [info, error, fatal] = records((logger) => {
      logger.info('fine');
      logger.error({ code: 7 }, 'broken');
      logger.fatal('gone');
    });
    expect(prettyLine(info, { colors: true })).toContain('\x1b[32mINFO ');
    const red = '\x1b[31m';
    const bold = '\x1b[1m';
    expect(prettyLine(error, { colors: true })).toContain(`${red}${bold}✖ ERROR`);
    expect(prettyLine(error, { colors: true })).toContain(`${red}${bold}broken\x1b[0m ${red}code=7`);
    expect(prettyLine(fatal, { colors: true })).toContain('\x1b[31m\x1b[7m\x1b[1m✖ FATAL');
  });

  it('passes a line that is not JSON through as it came', () => {
    expect(prettyLine('plain text\n', { colors: true })).toBe('plain text');
  });
});
