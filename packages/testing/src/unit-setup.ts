import { Server } from 'node:net';

/**
 * The unit project's promise (test-projects.ts): its files start no server. Any socket a test
 * would listen on (an HTTP server, the LLM emulator, a proxy) fails at once, naming the fix.
 */
Server.prototype.listen = function refuse(): never {
  throw new Error(
    'a unit test started a server: packages/testing/src/test-projects.ts decides which files are ' +
      'system tests; make this file match one of its patterns',
  );
};
