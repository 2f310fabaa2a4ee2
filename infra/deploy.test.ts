import { readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envSchema } from '@memfade/app';
import { childEnv, runCommand, tempDir } from '@memfade/testing';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The container deployment's settings (infra/compose.yaml and its overrides, infra/.env.example),
 * tested as far as a machine without a Docker engine allows: the compose files are validated by
 * Debian's docker-compose. The image itself is image.test.ts's.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const infra = join(root, 'infra');
// The YAML parser the mapping file is read with (@memfade/app's dependency).
const { parse: parseYaml } = createRequire(join(root, 'packages/app/package.json'))('yaml') as {
  parse(text: string): unknown;
};

/** The variables a dotenv-style file sets (`NAME=value` lines). */
function assignedNames(text: string): string[] {
  return [...text.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
}

/** Every compose file of infra/: the bundled one, the one for your own MongoDB, and the overrides. */
const COMPOSE_FILES = [
  'compose.yaml',
  'compose.existing-mongodb.yaml',
  'compose.fleet.yaml',
  'compose.mapping.yaml',
  'compose.monitoring.yaml',
];

/** What `docker-compose config` prints, as far as these tests read it. */
interface ComposeConfig {
  services: Record<
    string,
    {
      environment: Record<string, string | number>;
      depends_on?: Record<string, unknown>;
      extra_hosts?: unknown;
      volumes?: unknown[];
    }
  >;
  volumes?: Record<string, unknown>;
}

describe('infra/compose.yaml (validated by docker-compose, no engine needed)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  /** `docker-compose config` on the real compose file, with .env.example plus these settings as infra/.env. */
  const composeConfig = async (settings: Record<string, string>, files = ['compose.yaml']) => {
    const project = await tempDir('memfade-compose-');
    cleanups.push(project.remove);
    let env = await readFile(join(infra, '.env.example'), 'utf8');
    for (const [name, value] of Object.entries(settings)) {
      const line = new RegExp(`^${name}=.*$`, 'm');
      // A setting .env.example does not list (the fleet file's POSTGRES_PASSWORD) is added.
      env = line.test(env) ? env.replace(line, `${name}=${value}`) : `${env}\n${name}=${value}\n`;
    }
    await writeFile(join(project.dir, '.env'), env);
    // --project-directory: the compose file's relative paths (env_file: .env) and its ${...}
    // interpolations read this folder's .env instead of an operator's real infra/.env. Only PATH
    // from this process, so a DASHBOARD_PASSWORD in the test's own environment cannot satisfy it.
    return runCommand(
      'docker-compose',
      [...files.flatMap((file) => ['-f', join(infra, file)]), '--project-directory', project.dir, 'config'],
      { env: childEnv({}), cwd: project.dir },
    );
  };

  it('refuses to start without dashboard credentials, saying which settings to set where', async () => {
    const result = await composeConfig({ DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: '' });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('set DASHBOARD_USER and DASHBOARD_PASSWORD in infra/.env');
  });

  it('is valid with credentials, and its own settings win over the copied .env.example', async () => {
    const result = await composeConfig({ DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: 'pa55-w0rd' });
    expect(result.output).not.toMatch(/error|invalid/i);
    expect(result.code).toBe(0);
    expect(result.output).toContain('DASHBOARD_PASSWORD: pa55-w0rd');
    const service = (name: string) => result.output.split(`\n  ${name}:\n`)[1]!.split(/\n {2}\w/)[0]!;
    // .env.example says .memfade/lancedb (relative to /app, which the image's user cannot write).
    expect(service('worker')).toContain('LANCEDB_DIR: /var/lib/memfade/lancedb');
    expect(service('worker')).toContain('healthcheck:');
    expect(service('dashboard')).toContain('healthcheck:');
  });

  it('with compose.fleet.yaml: workers on PostgreSQL with pgvector, no shared volume', async () => {
    const fleet = ['compose.yaml', 'compose.fleet.yaml'];
    const credentials = { DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: 'pa55-w0rd' };
    const refused = await composeConfig(credentials, fleet);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('set POSTGRES_PASSWORD in infra/.env for compose.fleet.yaml');

    const result = await composeConfig({ ...credentials, POSTGRES_PASSWORD: 'pg-pa55' }, fleet);
    expect(result.output).not.toMatch(/error|invalid/i);
    expect(result.code).toBe(0);
    const service = (name: string) => result.output.split(`\n  ${name}:\n`)[1]!.split(/\n {2}\w/)[0]!;
    expect(service('postgres')).toContain('image: pgvector/pgvector:pg17');
    const worker = service('worker');
    expect(worker).toContain('VECTOR_STORE: pgvector');
    expect(worker).toContain('PGVECTOR_URL: postgresql://memfade:pg-pa55@postgres:5432/memfade');
    expect(worker).toMatch(/postgres:\n\s+condition: service_healthy/);
    // Its data folder is its own (tmpfs), not the `vectors` volume the LanceDB setup shares.
    expect(worker).toContain('type: tmpfs');
    expect(worker).not.toMatch(/source: vectors/);
    // The dashboard opens no vector store: it gets no PostgreSQL URL.
    expect(service('dashboard')).not.toContain('PGVECTOR_URL: postgresql');
  });

  it('with compose.monitoring.yaml: Prometheus with the alert rules scraping the dashboard by token, Grafana provisioned', async () => {
    const monitoring = ['compose.yaml', 'compose.monitoring.yaml'];
    const credentials = { DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: 'pa55-w0rd' };
    const refused = await composeConfig({ ...credentials, GRAFANA_ADMIN_PASSWORD: 'gr4f' }, monitoring);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('set METRICS_TOKEN in infra/.env for compose.monitoring.yaml');

    const settings = { ...credentials, METRICS_TOKEN: 'scr4pe-t0ken', GRAFANA_ADMIN_PASSWORD: 'gr4f' };
    const result = await composeConfig(settings, monitoring);
    expect(result.output).not.toMatch(/error|invalid/i);
    expect(result.code).toBe(0);
    // docker-compose prints bind mounts as `source:target:mode`, relative sources resolved against
    // the project directory (infra/ when started as the file's header says, the test's folder here).
    const mounted = (service: string) =>
      Object.fromEntries(
        ((parsed(result.output).services[service]?.volumes ?? []) as string[]).map((v) => {
          const [source, target] = v.split(':');
          return [target, source!.split('/').slice(-2).join('/')];
        }),
      );
    expect(mounted('prometheus')['/etc/prometheus']).toMatch(/\/prometheus$/);
    expect(mounted('grafana')['/etc/grafana/provisioning']).toBe('grafana/provisioning');
    expect(mounted('grafana')['/var/lib/grafana/dashboards']).toBe('grafana/dashboards');
    // What the mounts hold: the rules the config loads, a scrape of the dashboard with the token file.
    const prometheus = await readFile(join(infra, 'prometheus/prometheus.yml'), 'utf8');
    expect(prometheus).toContain('rule_files: [/etc/prometheus/rules.yml]');
    expect(prometheus).toContain('dashboard:3000');
    expect(prometheus).toContain('credentials_file: /tmp/metrics-token');
    await stat(join(infra, 'prometheus/rules.yml'));
  });

  it('sets only variables the configuration knows, in every compose file', async () => {
    const known = new Set(Object.keys(envSchema.shape));
    for (const file of COMPOSE_FILES) {
      const compose = await readFile(join(infra, file), 'utf8');
      const set = [...compose.matchAll(/^ {6}([A-Z][A-Z0-9_]*):|\$\{([A-Z][A-Z0-9_]*)/gm)].map(
        (m) => m[1] ?? m[2]!,
      );
      expect(set.length, file).toBeGreaterThan(0);
      // POSTGRES_*: the fleet's PostgreSQL container's own settings; GF_* and GRAFANA_*: Grafana's.
      expect(
        set.filter((name) => !known.has(name) && !/^(POSTGRES|GF|GRAFANA)_/.test(name)),
        file,
      ).toEqual([]);
    }
  });

  const credentials = { DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: 'pa55-w0rd' };
  const yourMongo = 'mongodb://memfade:s3cret@db1.internal:27017,db2.internal:27017/?replicaSet=rs0';
  const parsed = (output: string) => parseYaml(output) as ComposeConfig;

  it('compose.existing-mongodb.yaml: your MongoDB from infra/.env, no mongodb service, and refuses to start without it', async () => {
    const file = ['compose.existing-mongodb.yaml'];
    const refused = await composeConfig({ ...credentials, MONGODB_URI: '' }, file);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('set MONGODB_URI in infra/.env to your MongoDB (docs/deploy.md)');

    const result = await composeConfig(
      { ...credentials, MONGODB_URI: yourMongo, MONGODB_DB: 'chat_app' },
      file,
    );
    expect(result.output).not.toMatch(/error|invalid/i);
    expect(result.code).toBe(0);
    const config = parsed(result.output);
    expect(Object.keys(config.services).sort()).toEqual(['dashboard', 'redis', 'worker']);
    expect(Object.keys(config.volumes ?? {})).not.toContain('mongo-data');
    for (const name of ['worker', 'dashboard']) {
      const service = config.services[name]!;
      expect(service.environment.MONGODB_URI, name).toBe(yourMongo);
      expect(service.environment.MONGODB_DB, name).toBe('chat_app');
      expect(Object.keys(service.depends_on ?? {}), name).toEqual(['redis']);
      // A MongoDB on the Docker host is reachable by name from inside the container.
      // (docker-compose prints them as a list or a map, as written in the file or merged.)
      const hosts = Array.isArray(service.extra_hosts)
        ? service.extra_hosts
        : Object.entries(service.extra_hosts ?? {}).map(([host, ip]) => `${host}:${ip}`);
      expect(hosts, name).toEqual(['host.docker.internal:host-gateway']);
    }
  });

  it('compose.existing-mongodb.yaml is compose.yaml, setting for setting, but for MongoDB', async () => {
    const settings = { ...credentials, MONGODB_URI: yourMongo };
    const bundled = parsed((await composeConfig(settings)).output);
    const existing = parsed((await composeConfig(settings, ['compose.existing-mongodb.yaml'])).output);
    delete bundled.services.mongodb;
    delete bundled.volumes?.['mongo-data'];
    for (const config of [bundled, existing])
      for (const name of ['worker', 'dashboard']) {
        const service = config.services[name]!;
        delete service.environment.MONGODB_URI;
        delete service.depends_on?.mongodb;
        delete service.extra_hosts;
      }
    expect(existing).toEqual(bundled);
  });

  it('compose.mapping.yaml mounts MEMFADE_MAPPING read-only where the containers look for it, on either compose file', async () => {
    const path = '/etc/memfade/mapping.yaml';
    for (const base of ['compose.yaml', 'compose.existing-mongodb.yaml']) {
      const files = [base, 'compose.mapping.yaml'];
      const refused = await composeConfig(
        { ...credentials, MONGODB_URI: yourMongo, MEMFADE_MAPPING: '' },
        files,
      );
      expect(refused.code, base).not.toBe(0);
      expect(refused.output, base).toContain(
        "set MEMFADE_MAPPING in infra/.env to your mapping file's absolute path",
      );
      const result = await composeConfig(
        { ...credentials, MONGODB_URI: yourMongo, MEMFADE_MAPPING: path },
        files,
      );
      expect(result.code, result.output).toBe(0);
      const config = parsed(result.output);
      for (const name of ['worker', 'dashboard']) {
        const service = config.services[name]!;
        expect(service.environment.MEMFADE_MAPPING, `${base} ${name}`).toBe(path);
        expect(service.volumes, `${base} ${name}`).toContain(`${path}:${path}:ro`);
      }
      // The worker keeps its data folder beside the mapping file.
      expect(config.services.worker!.volumes!.some((v) => String(v).startsWith('vectors:'))).toBe(true);
    }
  });

  it('compose.existing-mongodb.yaml with compose.fleet.yaml: workers on pgvector and your MongoDB', async () => {
    const files = ['compose.existing-mongodb.yaml', 'compose.fleet.yaml'];
    const result = await composeConfig(
      { ...credentials, MONGODB_URI: yourMongo, POSTGRES_PASSWORD: 'pg' },
      files,
    );
    expect(result.code, result.output).toBe(0);
    const config = parsed(result.output);
    expect(Object.keys(config.services).sort()).toEqual(['dashboard', 'postgres', 'redis', 'worker']);
    const worker = config.services.worker!;
    expect(worker.environment).toMatchObject({ VECTOR_STORE: 'pgvector', MONGODB_URI: yourMongo });
    expect(Object.keys(worker.depends_on ?? {}).sort()).toEqual(['postgres', 'redis']);
  });
});

describe('infra/.env.example', () => {
  it('lists every variable of the configuration, and nothing else', async () => {
    const listed = assignedNames(await readFile(join(infra, '.env.example'), 'utf8'));
    expect([...listed].sort()).toEqual(Object.keys(envSchema.shape).sort());
  });
});
