import type { NextFunction, Request, Response } from 'express';
import { SAFE_METHODS } from './auth.js';

/** Addresses that mean "every interface": no browser names the dashboard by them. */
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The names a request's Host header may carry: localhost, the loopback addresses, DASHBOARD_HOST
 * (unless it is a wildcard address) and DASHBOARD_ALLOWED_HOSTS, lower case, IPv6 in brackets.
 */
export function allowedHostNames(host: string, configured: string[] = []): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]', ...configured]);
  const bound = host.toLowerCase();
  if (!WILDCARD.has(bound)) names.add(bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound);
  return names;
}

const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)*)\.?(?::\d{1,5})?$/i;

/** The name part of a Host header (no port, lower case), or undefined when it is not a host name. */
function hostName(header: string | undefined): string | undefined {
  return header ? HOST_HEADER.exec(header)?.[1]?.toLowerCase() : undefined;
}

/**
 * DNS rebinding: a page on attacker.example re-points its own name at 127.0.0.1, and the browser
 * then lets it read the dashboard as its own origin. What gives it away is the Host header, which
 * still says attacker.example: a request naming a host the dashboard is not refuses (421).
 */
export function hostCheck(allowed: Set<string>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const name = hostName(req.headers.host);
    if (name !== undefined && allowed.has(name)) return next();
    // The Host header is not echoed back: the setting to change is enough.
    res
      .status(421)
      .type('text')
      .send('this dashboard does not answer to that host name: add it to DASHBOARD_ALLOWED_HOSTS');
  };
}

/**
 * A change (any method but GET, HEAD, OPTIONS) whose Origin, or Referer when there is no Origin, is
 * not this dashboard is refused (403): another site's page could otherwise send the browser's
 * saved credentials along with its own request. A request with neither (curl, scripts) passes.
 */
export function sameOriginChanges(req: Request, res: Response, next: NextFunction) {
  if (SAFE_METHODS.has(req.method)) return next();
  const source = req.headers.origin ?? req.headers.referer;
  if (source === undefined || sameHost(source, req.headers.host)) return next();
  res.status(403).type('text').send('cross-origin request refused');
}

/** The Host header was checked before: an origin with the same host and port is the dashboard's. */
function sameHost(source: string, host: string | undefined): boolean {
  if (!URL.canParse(source)) return false; // `Origin: null` (sandboxed pages, file://) too
  const url = new URL(source);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === host?.toLowerCase();
}
