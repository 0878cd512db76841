/**
 * The Status page's data (SPEC §4 "Console Status page"): the admin API's information report, the same as
 * `rc admin info cluster --json` (docs/admin-api.md). `GET /svc/console/api/status` answers it once; the WebSocket
 * `/svc/console/ws` pushes it every few seconds while the page is open, so a node or drive going down or coming
 * back shows without a reload (issue 6). Both need `admin:ServerInfo`, as the admin call does.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ADMIN_RESOURCE, requireAllowed, type Actor } from './actor.js';
import type { ConsoleContext } from './console-context.js';
import { toConsoleError } from './console-error.js';

/** Options of {@link statusRoutes}. */
export interface StatusRoutesOptions {
  ctx: ConsoleContext;
}

/** What the status loop uses of a `ws` socket. */
interface StatusSocket {
  readonly readyState: number;
  readonly OPEN: number;
  send(data: string): void;
  close(code: number, reason: string): void;
  terminate(): void;
  on(event: string, listener: () => void): void;
}

/** Close code of a socket whose session ended (4000-4999: application codes, RFC 6455 §7.4.2). */
export const WS_SESSION_ENDED = 4401;

/** See the module comment. */
export const statusRoutes: FastifyPluginAsync<StatusRoutesOptions> = async (app, { ctx }) => {
  const interval = ctx.services.statusIntervalMs ?? 2000;
  const allowed = async (request: FastifyRequest): Promise<Actor> => {
    const actor = await ctx.actor(request);
    requireAllowed(actor, 'admin:ServerInfo', ADMIN_RESOURCE);
    return actor;
  };

  app.get('/svc/console/api/status', async (request) => {
    await allowed(request);
    return ctx.services.info();
  });

  // One report for every open page: a round of peer calls per period, not per socket.
  const sockets = new Map<StatusSocket, FastifyRequest>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  const push = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      let message: string;
      try {
        message = JSON.stringify({ type: 'status', report: await ctx.services.info() });
      } catch (err) {
        const { error } = toConsoleError(err);
        message = JSON.stringify({ type: 'error', code: error.code, message: error.message });
      }
      for (const [socket, request] of sockets) {
        try {
          // The session may expire or lose its permission while the page stays open: a fresh request object
          // each round, since the actor is cached per request.
          await ctx.actor(Object.create(request) as FastifyRequest).then((a) => requireAllowed(a, 'admin:ServerInfo', ADMIN_RESOURCE));
          socket.send(message);
        } catch (err) {
          const { error } = toConsoleError(err);
          socket.close(WS_SESSION_ENDED, error.message.slice(0, 120));
          sockets.delete(socket);
        }
      }
    } finally {
      running = false;
    }
  };
  const forget = (socket: StatusSocket): void => {
    sockets.delete(socket);
    if (sockets.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  app.addHook('onClose', async () => {
    if (timer !== undefined) clearInterval(timer);
    for (const socket of sockets.keys()) socket.terminate();
  });

  app.get('/svc/console/ws', {
    websocket: true,
    // Checked before the upgrade, so a refused handshake is a plain 401/403 JSON answer.
    preValidation: async (request) => {
      ctx.checkOrigin(request);
      await allowed(request);
    },
  }, (ws, request) => {
    const socket = ws as StatusSocket;
    sockets.set(socket, request);
    socket.on('close', () => forget(socket));
    socket.on('error', () => forget(socket));
    socket.on('message', () => { /* the client only listens */ });
    if (timer === undefined) timer = setInterval(() => { void push(); }, interval);
    void ctx.services.info().then(
      (report) => { if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ type: 'status', report })); },
      (err: unknown) => {
        const { error } = toConsoleError(err);
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ type: 'error', code: error.code, message: error.message }));
      },
    );
  });
};
