/** True when a NATS subject matches a pattern (`*` one token, `>` one or more trailing tokens). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const patternTokens = pattern.split('.');
  const subjectTokens = subject.split('.');
  for (let index = 0; index < patternTokens.length; index++) {
    const token = patternTokens[index];
    if (token === '>') return subjectTokens.length > index;
    if (index >= subjectTokens.length) return false;
    if (token !== '*' && token !== subjectTokens[index]) return false;
  }
  return patternTokens.length === subjectTokens.length;
}
