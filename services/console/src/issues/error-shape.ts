/**
 * The shape of an error message: what stays the same between occurrences of one cause. Ids, numbers, hex, UUIDs,
 * quoted values, URLs' paths and e-mail addresses become placeholders, so `Stripe 500 for cus_Q1 after 2013 ms`
 * and `Stripe 500 for cus_X9 after 87 ms` are one issue.
 */
export function errorShape(message: string): string {
  return message
    .slice(0, 500)
    .replace(/[^\s@"']+@[^\s@"']+\.[^\s@"']+/g, '<email>')
    .replace(/\bhttps?:\/\/([^/\s]+)[^\s]*/g, 'https://$1/…')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\b[a-z]{2,8}_[A-Za-z0-9]{4,}\b/g, (id) => `${id.split('_')[0]}_<id>`)
    .replace(/"[^"]{0,200}"|'[^']{0,200}'/g, '"…"')
    .replace(/\b[0-9a-f]{12,}\b/gi, '<hex>')
    .replace(/\b\d+(\.\d+)?\b/g, (digits) => (/^[1-5]\d\d$/.test(digits) ? digits : '<n>'))
    .replace(/\s+/g, ' ')
    .trim();
}

/** The error class of `Name: message` text (the inbox and the dispatcher store errors so), or `Error`. */
export function errorClassOf(text: string): { errorClass: string; message: string } {
  const match = /^([A-Z][A-Za-z0-9_]*(?:Error|Exception|Failure)?):\s*([\s\S]*)$/.exec(text.trim());
  return match ? { errorClass: match[1], message: match[2] } : { errorClass: 'Error', message: text.trim() };
}
