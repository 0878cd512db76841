/** One section of haproxy.cfg: `frontend https`, `backend s3`, `global`, ... */
export interface HaproxySection {
  kind: string;
  name: string;
  /** Directive lines, trimmed, comments and blank lines removed. */
  lines: string[];
  /** 1-based line number of the section header. */
  line: number;
}

const SECTION_KINDS = new Set(['global', 'defaults', 'frontend', 'backend', 'listen', 'resolvers', 'peers', 'userlist', 'mailers', 'program', 'http-errors', 'ring', 'cache']);

/** Splits haproxy.cfg text into sections (a line starting in column 0 with a section keyword opens one). */
export function parseHaproxySections(cfg: string): HaproxySection[] {
  const sections: HaproxySection[] = [];
  let current: HaproxySection | undefined;
  cfg.split('\n').forEach((raw, i) => {
    const text = raw.replace(/(^|\s)#.*$/, '').trimEnd();
    if (text.trim() === '') return;
    const first = text.split(/\s+/)[0] ?? '';
    if (!/^\s/.test(text) && SECTION_KINDS.has(first)) {
      current = { kind: first, name: text.trim().split(/\s+/)[1] ?? '', lines: [], line: i + 1 };
      sections.push(current);
      return;
    }
    current?.lines.push(text.trim());
  });
  return sections;
}

/** The section `kind name`, if present. */
export function findSection(sections: readonly HaproxySection[], kind: string, name = ''): HaproxySection | undefined {
  return sections.find((s) => s.kind === kind && s.name === name);
}
