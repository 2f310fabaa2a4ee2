import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '@memfade/runtime';
import type { NextFunction, Request, Response } from 'express';
import { clientKey, type LoginThrottle } from './login-throttle.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/**
 * The dashboard can retry and delete jobs: off loopback it must not start without credentials.
 * On loopback, credentials are optional (a developer's machine), and without them it is read-only.
 */
export function checkExposure(options: { host: string; user?: string; password?: string }): void {
  if (isLoopback(options.host)) return;
  if (!options.user || !options.password) {
    throw new ConfigError(
      `DASHBOARD_USER and DASHBOARD_PASSWORD are required when DASHBOARD_HOST (${options.host}) is not a loopback address`,
    );
  }
}

/** Compares SHA-256 digests, which have one length: the time taken says nothing of either string. */
function same(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function basicMatches(header: string, user: string, password: string): boolean {
  const [scheme, encoded] = header.split(' ');
  if (scheme !== 'Basic' || !encoded) return false;
  const decoded = Buffer.from(encoded, 'base64').toString();
  const colon = decoded.indexOf(':');
  if (colon <= 0) return false;
  // Both compared every time: a right user name does not answer slower than a wrong one.
  const userMatches = same(decoded.slice(0, colon), user);
  const passwordMatches = same(decoded.slice(colon + 1), password);
  return userMatches && passwordMatches;
}

/**
 * Checks the Authorization header through the throttle: a request without one is not a guess (a
 * browser asks first, then prompts); during a client's lockout nothing it sends is checked.
 */
function throttled(
  throttle: LoginThrottle,
  matches: (header: string) => boolean,
  challenge: (res: Response) => void,
) {
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization;
    if (!header) return challenge(res);
    const client = clientKey(req.socket.remoteAddress);
    const wait = throttle.waitMs(client);
    if (wait > 0) return tooManyFailures(res, wait);
    if (matches(header)) {
      throttle.succeeded(client);
      return next();
    }
    const lock = throttle.failed(client);
    if (lock > 0) return tooManyFailures(res, lock);
    challenge(res);
  };
}

function tooManyFailures(res: Response, waitMs: number): void {
  res
    .set('Retry-After', String(Math.ceil(waitMs / 1000)))
    .status(429)
    .type('text')
    .send('too many failed logins: try again later');
}

/** HTTP basic auth; the refusal says nothing about the queues behind it. */
export function basicAuth(user: string, password: string, throttle: LoginThrottle) {
  return throttled(
    throttle,
    (header) => basicMatches(header, user, password),
    (res) => {
      res
        .set('WWW-Authenticate', 'Basic realm="memfade", charset="UTF-8"')
        .status(401)
        .type('text')
        .send('authentication required');
    },
  );
}

/**
 * `Authorization: Bearer <token>` (METRICS_TOKEN): what a Prometheus scrape config sends
 * (`authorization: { credentials: ... }`), so the scraper never holds the dashboard's password.
 */
export function bearerAuth(token: string, throttle: LoginThrottle) {
  return throttled(
    throttle,
    (header) => {
      const [scheme, given] = header.split(' ');
      return scheme === 'Bearer' && !!given && same(given, token);
    },
    (res) => {
      res
        .set('WWW-Authenticate', 'Bearer realm="memfade-metrics"')
        .status(401)
        .type('text')
        .send('authentication required');
    },
  );
}

/** Methods that only read; anything else changes queues or jobs. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Without credentials (allowed on loopback only) the dashboard reads but changes nothing: any local
 * process or page could otherwise pause a queue or delete jobs.
 */
export function readOnlyWithoutCredentials(req: Request, res: Response, next: NextFunction) {
  if (SAFE_METHODS.has(req.method)) return next();
  res
    .status(403)
    .type('text')
    .send('read-only: set DASHBOARD_USER and DASHBOARD_PASSWORD to retry, clean, pause or delete jobs');
}
