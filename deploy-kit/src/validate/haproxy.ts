import type { Finding } from './finding.js';
import { findSection, parseHaproxySections } from './haproxy-sections.js';
import type { HaproxySection } from './haproxy-sections.js';

const REWRITES = /^http-request\s+(set-path|replace-path|set-uri|replace-uri|set-pathq|replace-pathq|set-query|del-header\s+host|set-header\s+host|replace-header\s+host)\b/i;

function at(s: HaproxySection): string {
  return `${s.kind} ${s.name}`.trim();
}

function checkBackendHealth(backend: HaproxySection | undefined, name: string, path: string, out: Finding[]): void {
  if (!backend) {
    out.push({ level: 'error', path: `backend ${name}`, message: `backend ${name} is missing`, hint: 'render haproxy.cfg from the spec with `deploy-kit render`' });
    return;
  }
  if (!backend.lines.some((l) => l === `option httpchk GET ${path}`)) {
    out.push({ level: 'error', path: at(backend), message: `no "option httpchk GET ${path}"`, hint: `SPEC rule 7: the ${name} backend checks GET ${path}` });
  }
  if (!backend.lines.includes('http-check expect status 200')) {
    out.push({ level: 'error', path: at(backend), message: 'no "http-check expect status 200"', hint: 'SPEC rule 7 expects exactly 200; a redirect must not count as healthy' });
  }
  if (!backend.lines.some((l) => l.startsWith('server '))) {
    out.push({ level: 'error', path: at(backend), message: 'has no server', hint: 'SPEC rule 10: every node is in both backends' });
  }
}

/**
 * Structural checks of a rendered haproxy.cfg that `haproxy -c` cannot know about: the SPEC §4 rules.
 * Pure; the real `haproxy -c` run belongs to the check command.
 */
export function validateHaproxyText(cfg: string): Finding[] {
  const out: Finding[] = [];
  const sections = parseHaproxySections(cfg);
  for (const s of sections) {
    for (const l of s.lines) {
      if (/^cookie\s/.test(l) && !(s.kind === 'backend' && s.name === 'console')) {
        out.push({ level: 'error', path: at(s), message: `affinity cookie outside the console backend: "${l}"`, hint: 'SPEC rule 11: only the console backend sets the affinity cookie; S3 clients must not be pinned' });
      }
      if (/^option\s+http-buffer-request\b/.test(l)) {
        out.push({ level: 'error', path: at(s), message: 'request buffering is enabled', hint: 'SPEC rule 3: stream S3 bodies; remove option http-buffer-request' });
      }
      if (REWRITES.test(l)) {
        out.push({ level: 'error', path: at(s), message: `rewrites the path or Host: "${l}"`, hint: 'SPEC rule 3: SigV4 signs path and Host; pass both through untouched' });
      }
      if (/^stats\s+(enable|uri)\b/.test(l)) {
        out.push({ level: 'error', path: at(s), message: 'the statistics page is exposed', hint: 'SPEC rule 14: never expose the proxy dashboard' });
      }
      if (/^http-request\s+redirect\s+scheme\b/.test(l)) {
        out.push({ level: 'warning', path: at(s), message: 'uses "redirect scheme", which keeps the Host port', hint: 'use `redirect location https://%[req.hdr(host),field(1,:)]%[capture.req.uri] code 301` (DOCKER.md §2)' });
      }
    }
  }
  const consoleBackend = findSection(sections, 'backend', 'console');
  checkBackendHealth(findSection(sections, 'backend', 's3'), 's3', '/health/ready', out);
  checkBackendHealth(consoleBackend, 'console', '/svc/console/health', out);
  if (consoleBackend) {
    const cookie = consoleBackend.lines.find((l) => l.startsWith('cookie '));
    if (!cookie || !/^cookie svc_console insert\b/.test(cookie) || !/\bsecure\b/.test(cookie) || !/\bhttponly\b/.test(cookie) || !/SameSite=Lax/.test(cookie)) {
      out.push({ level: 'error', path: 'backend console', message: 'no secure, HttpOnly, SameSite=Lax svc_console cookie', hint: 'SPEC rule 11: cookie svc_console insert indirect nocache httponly secure attr "SameSite=Lax"' });
    }
    const servers = consoleBackend.lines.filter((l) => l.startsWith('server '));
    if (servers.some((l) => !/\scookie\s+\S+/.test(l))) {
      out.push({ level: 'error', path: 'backend console', message: 'a console server has no per-node cookie value', hint: 'SPEC rule 11: add `cookie <node>` to every console server line' });
    }
  }
  for (const name of ['http', 'https']) {
    const fe = findSection(sections, 'frontend', name);
    if (!fe) {
      out.push({ level: 'error', path: `frontend ${name}`, message: `frontend ${name} is missing`, hint: 'render haproxy.cfg from the spec' });
    } else if (!fe.lines.some((l) => /^default_backend\s/.test(l))) {
      out.push({ level: 'error', path: at(fe), message: 'no default_backend for unknown hosts', hint: 'SPEC rule 6: unknown hostnames get 404 from the proxy' });
    }
  }
  return out;
}
