// Where this Nubis is reached, for the pages a processor sends the customer to and back from.

import type { Platform } from '../platform/context.ts';
import { consoleUrl } from '../accounts/account.service.ts';

/** PUBLIC_URL, else the address the request came to (scheme, host, port), else localhost. */
export function siteUrl(ctx: Platform, origin: string | undefined): string {
  return ctx.config.publicUrl || !origin ? consoleUrl(ctx) : origin.replace(/\/+$/, '');
}

/** Whether a URL is on this Nubis (the same scheme, host and port as `site`). */
export function onSite(url: string, site: string): boolean {
  try {
    return new URL(url).origin === new URL(site).origin;
  } catch {
    return false;
  }
}
