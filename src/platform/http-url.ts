// The URLs Nubis calls or sends a browser to (a webhook, a server's script, a checkout's return):
// absolute, and http or https.

/** Whether the text is an absolute http or https URL. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
