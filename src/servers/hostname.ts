// Host names as RFC 1123 defines them: the server's hostname and reverse DNS names.

const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

/** Why the text is not a host name, or null when it is one. A trailing dot (FQDN) is allowed. */
export function hostnameProblem(text: string): string | null {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name.length === 0) return 'bad value: must not be empty';
  if (name.length > 253) return 'bad value: a host name has at most 253 characters';
  for (const part of name.split('.')) {
    if (!label.test(part))
      return 'bad value: must be an RFC 1123 host name (labels of 1-63 letters, digits and inner hyphens, separated by dots)';
  }
  return null;
}
