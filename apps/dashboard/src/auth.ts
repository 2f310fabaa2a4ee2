import { timingSafeEqual } from 'node:crypto';
import { ConfigError } from '@memfade/runtime';
import type { NextFunction, Request, Response } from 'express';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/**
 * The dashboard can retry and delete jobs: off loopback it must not start without credentials.
 * On loopback, credentials are optional (a developer's machine).
 */
export function checkExposure(options: { host: string; user?: string; password?: string }): void {
  if (isLoopback(options.host)) return;
  if (!options.user || !options.password) {
    throw new ConfigError(
      `DASHBOARD_USER and DASHBOARD_PASSWORD are required when DASHBOARD_HOST (${options.host}) is not a loopback address`,
    );
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** HTTP basic auth; the refusal says nothing about the queues behind it. */
export function basicAuth(user: string, password: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const [scheme, encoded] = header.split(' ');
    if (scheme === 'Basic' && encoded) {
      const decoded = Buffer.from(encoded, 'base64').toString();
      const colon = decoded.indexOf(':');
      if (colon > 0 && same(decoded.slice(0, colon), user) && same(decoded.slice(colon + 1), password))
        return next();
    }
    res
      .set('WWW-Authenticate', 'Basic realm="memfade", charset="UTF-8"')
      .status(401)
      .type('text')
      .send('authentication required');
  };
}

/**
 * `Authorization: Bearer <token>` (METRICS_TOKEN): what a Prometheus scrape config sends
 * (`authorization: { credentials: ... }`), so the scraper never holds the dashboard's password.
 */
export function bearerAuth(token: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const [scheme, given] = (req.headers.authorization ?? '').split(' ');
    if (scheme === 'Bearer' && given && same(given, token)) return next();
    res
      .set('WWW-Authenticate', 'Bearer realm="memfade-metrics"')
      .status(401)
      .type('text')
      .send('authentication required');
  };
}
