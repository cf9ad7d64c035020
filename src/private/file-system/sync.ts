import { Duration, Size, Token } from 'aws-cdk-lib';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { IConstruct } from 'constructs';
import { ImportTrigger, S3FilesFileSystemOptions } from '../../s3files-file-system-props';
import { invalid } from '../messages';
import { validateImportSizeThreshold, validatePrefix, validateWholeDays } from '../validation';

/** CloudFormation takes 1 to 10 import rules per file system. */
const MAX_IMPORT_DATA_RULES = 10;

/**
 * The file system's `SynchronizationConfiguration`: none (the service's defaults) unless one of the
 * import or expiration props is set, then every rule CloudFormation needs.
 */
export function synchronizationConfiguration(
  scope: IConstruct, props: S3FilesFileSystemOptions,
): s3files.CfnFileSystem.SynchronizationConfigurationProperty | undefined {
  if (props.importDataRules === undefined && props.expireAfterLastAccess === undefined) {
    return undefined; // service defaults
  }
  // CloudFormation needs both lists once the configuration is written: the service's default rule.
  const rules = props.importDataRules ?? [{ prefix: '' }];
  if (!Array.isArray(rules) || rules.length < 1 || rules.length > MAX_IMPORT_DATA_RULES) {
    invalid(scope, 'importDataRules', Array.isArray(rules) ? `${rules.length} rules` : rules, `S3 Files takes 1 to ${MAX_IMPORT_DATA_RULES} import rules`,
      `give between 1 and ${MAX_IMPORT_DATA_RULES} rules (or omit \`importDataRules\` for the default)`);
  }
  const seen = new Set<string>();
  const importDataRules = rules.map((rule, i) => {
    const name = (field: string) => `importDataRules[${i}].${field}`;
    const prefix = rule.prefix ?? '';
    validatePrefix(scope, prefix, name('prefix'));
    if (!Token.isUnresolved(prefix)) {
      if (seen.has(prefix)) {
        invalid(scope, name('prefix'), prefix, 'two import rules have the same prefix', 'give each rule its own prefix');
      }
      seen.add(prefix);
    }
    const sizeLessThan = validateImportSizeThreshold(scope, rule.sizeLessThan ?? Size.kibibytes(128), name('sizeLessThan'));
    const trigger = importTriggerValue(scope, rule.trigger, name('trigger'));
    return { prefix, sizeLessThan, trigger };
  });
  requireRootRule(scope, rules.map((r) => r.prefix ?? ''));
  const days = validateWholeDays(scope, 'expireAfterLastAccess', props.expireAfterLastAccess ?? Duration.days(30), 1, 365);
  return {
    importDataRules,
    expirationDataRules: [{ daysAfterLastAccess: days }],
  };
}

/**
 * The S3 user guide ("Customizing synchronization for S3 Files") requires exactly one import rule
 * for the file system's root directory (prefix ''); without it CreateFileSystem fails. A rule with a
 * token prefix may be that rule: its own warning already says it is checked only at deploy time.
 */
function requireRootRule(scope: IConstruct, prefixes: string[]): void {
  if (prefixes.some((p) => p === '' || Token.isUnresolved(p))) return;
  invalid(scope, 'importDataRules', prefixes.map((p) => ({ prefix: p })),
    'S3 Files requires exactly one import rule for the root directory (prefix \'\'), and none has it',
    'add `{ prefix: \'\' }` (the service\'s default rule: 128 KiB, `ImportTrigger.ON_DIRECTORY_FIRST_ACCESS`), or set `prefix` to \'\' on the rule for the whole file '
      + 'system');
}

export function importTriggerValue(scope: IConstruct, value: ImportTrigger | undefined, prop: string): string {
  const trigger = (value ?? ImportTrigger.ON_DIRECTORY_FIRST_ACCESS).value;
  if (typeof trigger !== 'string') {
    invalid(scope, prop, value, 'it must be an `ImportTrigger`', 'use `ImportTrigger.ON_DIRECTORY_FIRST_ACCESS` or `ImportTrigger.ON_FILE_ACCESS`');
  }
  if (!Token.isUnresolved(trigger) && !/^[A-Z][A-Z_]*$/.test(trigger)) {
    invalid(scope, prop, trigger, 'CloudFormation expects an upper-case value such as ON_FILE_ACCESS',
      'use `ImportTrigger.ON_DIRECTORY_FIRST_ACCESS` or `ImportTrigger.ON_FILE_ACCESS`');
  }
  return trigger;
}

