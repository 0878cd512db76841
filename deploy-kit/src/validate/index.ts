export type { Finding } from './finding.js';
export { validateTraefik, HEALTHCHECK_KEYS } from './traefik.js';
export { parseTraefikRule, TRAEFIK_MATCHERS } from './traefik-rule.js';
export type { RuleMatcher, RuleParseResult } from './traefik-rule.js';
export { validateHaproxyText } from './haproxy.js';
export { parseHaproxySections, findSection } from './haproxy-sections.js';
export type { HaproxySection } from './haproxy-sections.js';
