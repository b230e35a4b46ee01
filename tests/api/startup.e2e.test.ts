import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../../api/route.js';
import { loadConfig } from '../../infra/config.js';
import { buildService, type Service } from '../../app/composition.js';
import { modules } from '../../app/modules.js';
import { freePort, startedOn, waitUntil } from './faults.support.js';

const startProcess = (env: Record<string, string>) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
    env: { PATH: process.env.PATH, PGLITE_DIR: 'memory://', LOG_LEVEL: 'info', METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return { child, stdout: () => stdout, stderr: () => stderr };
};

// Child processes start tsx from scratch: on a loaded machine that alone can take most of a minute.
describe('start-up and shutdown', { timeout: 180_000 }, () => {
  let service: Service | undefined;
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });

  it('refuses a bad setting, naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ APP_ENV: 'staging' })).toThrow(/APP_ENV/);
    expect(() => loadConfig({ PLATFORM_COMMISSION_PRC: '140' })).toThrow(/PLATFORM_COMMISSION_PRC/);
  });

  it('a process started with a bad setting exits non-zero and names it', async () => {
    const { child, stderr } = startProcess({ DATABASE_URL: 'not a url' });
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr()).toMatch(/DATABASE_URL/);
  });

  it('npm start with no environment serves /health and the OpenAPI document, and stops on SIGTERM', async () => {
    const port = await freePort();
    const { child, stdout } = startProcess({ PORT: String(port) });
    try {
      await waitUntil(
        `health of the service on :${port}`,
        async () => startedOn(stdout(), port) && (await fetch(`http://127.0.0.1:${port}/health`)).ok,
      );
      const doc = await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`);
      expect(doc.status).toBe(200);
      expect((await doc.json()).openapi).toBe('3.1.0');
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('on stop, finishes the request in flight and then refuses new connections', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const slowModule = {
      name: 'slow',
      routes: (ctx: Service['ctx'], router: import('express').Router) =>
        defineRoute(
          router,
          ctx.openapi,
          {
            method: 'get',
            path: '/test-slow',
            summary: 'slow',
            auth: false,
            query: z.object({}),
            responses: { 200: { description: 'done', schema: z.object({ done: z.boolean() }) } },
          },
          async () => {
            entered();
            await released;
            return { done: true };
          },
        ),
    };
    service = await buildService({
      config: loadConfig({
        APP_ENV: 'test',
        LOG_LEVEL: 'silent',
        PGLITE_DIR: 'memory://',
        HOST: '127.0.0.1',
        METRICS_PORT: '0',
      }),
      modules: [...modules, slowModule],
    });
    const port = await service.start(0);
    const inFlight = fetch(`http://127.0.0.1:${port}/api/v1/test-slow`);
    await inside;
    const stopped = service.stop();
    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await stopped;
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    service = undefined;
  });
});
