/** Render a GitHub-flavoured markdown table; `|` and newlines in cells are escaped. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const line = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  const align = header.map((_, i) => (i === 0 ? '---' : '---:'));
  return [line(header), `| ${align.join(' | ')} |`, ...rows.map(line)].join('\n');
}
