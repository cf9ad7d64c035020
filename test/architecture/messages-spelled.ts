import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { spellings } from '../../src/private/messages';

/** Where a message text names an identifier a binding spells differently without backticks. */
export interface Unspelled {
  readonly file: string;
  readonly line: number;
  readonly word: string;
  readonly text: string;
}

/** Functions whose string arguments are user-facing message texts. */
const MESSAGE_CALLS = new Set(['invalid', 'warn', 'warnUnresolved']);

/**
 * A camelCase word (`vpcSubnets`) or a call (`fromFileSystemAttributes(`) outside backticks:
 * Python and Go users write it differently, so the message must backtick it to be spelled.
 * IAM actions and condition keys (`s3files:ClientWrite`, `aws:ResourceTag`), file names and
 * CloudFormation names (`Fn::GetAtt`, `PascalCase`) read the same in every language.
 */
const CAMEL = /(?<![`\w:./-])([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)(?![\w:`/-])/g;
/** A call on a module, type or object (`ec2.UserData.forLinux()`, `fileSystem.grant()`). */
const CALL = /(?<![`\w.:/-])((?:[A-Za-z][A-Za-z0-9]*\.)+[A-Za-z][A-Za-z0-9]*)\(/g;

function textsOf(node: ts.Node, out: string[]): void {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {out.push(node.text);} else if (ts.isTemplateExpression(node)) {
    out.push(node.head.text + node.templateSpans.map((s) => `\${}${s.literal.text}`).join(''));
  } else {ts.forEachChild(node, (c) => textsOf(c, out));}
}

/** Strips backticked spans, so only unquoted text is checked. */
function outsideBackticks(text: string): string {
  return text.replace(/`[^`]*`/g, '``');
}

export function unspelledMessageWords(srcDir: string): Unspelled[] {
  const found: Unspelled[] = [];
  const files = fs.readdirSync(srcDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => path.join(srcDir, f));
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && MESSAGE_CALLS.has(node.expression.text)) {
        // invalid(scope, prop, value, problem, fix): the prop is spelled by the helper; the value is data.
        const args = node.expression.text === 'invalid' ? node.arguments.slice(3) : node.arguments.slice(2);
        const texts: string[] = [];
        args.forEach((a) => textsOf(a, texts));
        for (const text of texts) {
          const calls = [...outsideBackticks(text).matchAll(CALL)].filter((m) => spellings(m[1], true).python !== `${m[1]}()`);
          for (const m of [...outsideBackticks(text).matchAll(CAMEL), ...calls]) {
            const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
            found.push({ file: path.relative(process.cwd(), file), line, word: m[1], text });
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
