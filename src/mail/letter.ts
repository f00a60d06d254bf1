// The one form of every mail's text Nubis writes to a person (activation, reset, out of funds,
// overage, the monthly invoice): a greeting by name, then the body.

/** A mail's text to a person: the greeting by name, a blank line, then the lines. */
export function letterText(name: string, lines: string[]): string {
  return [`Hello ${name},`, '', ...lines].join('\n');
}
