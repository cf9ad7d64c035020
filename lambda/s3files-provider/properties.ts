/**
 * Resource properties, parsed and validated for every resource type of the provider.
 * CloudFormation delivers every scalar as a string, so numbers and booleans arrive as text; the
 * Provider framework's tests (and older templates) may pass JS numbers and booleans too.
 */
import { ResourceError } from './resource-error';
import { CUSTOM_RESOURCE_MAX_SECONDS } from '../../src/private/provider/custom-resource-contract';

/** A property value as error messages quote it. */
export function show(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

export interface IntegerRule {
  /** Used when the property is absent or empty. */
  readonly fallback: number;
  readonly min: number;
  readonly max: number;
  /** A sentence that says how to fix a bad value, in the construct's terms. */
  readonly fix?: string;
}

/** Reads one request's properties; every error names the resource type, the property, the value and the fix. */
export class PropertyReader {
  constructor(private readonly resourceType: string, private readonly props: Record<string, unknown>) {}

  public fail(message: string): never {
    throw new ResourceError(this.resourceType, message);
  }

  public raw(name: string): unknown {
    return this.props[name];
  }

  /** A non-empty string, trimmed; `what` says what it is (with an example). */
  public requiredString(name: string, what: string): string {
    const value = this.props[name];
    if (typeof value !== 'string' || value.trim() === '') this.fail(`"${name}" is required (${what}), got ${show(value)}.`);
    return value.trim();
  }

  /** A trimmed string, or undefined when absent or blank. */
  public optionalString(name: string, what: string): string | undefined {
    const value = this.props[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') this.fail(`"${name}" must be ${what} string, got ${show(value)}.`);
    return value.trim() === '' ? undefined : value.trim();
  }

  /** "true" or "false" (absent or empty: false). */
  public boolean(name: string): boolean {
    const raw = this.props[name];
    if (raw === undefined || raw === '' || raw === false || raw === 'false') return false;
    if (raw === true || raw === 'true') return true;
    return this.fail(`"${name}" must be "true" or "false", got ${show(raw)}.`);
  }

  /** A whole number within the rule's bounds (absent or empty: its fallback). */
  public integer(name: string, rule: IntegerRule): number {
    const raw = this.props[name];
    if (raw === undefined || raw === '') return rule.fallback;
    const text = typeof raw === 'number' || typeof raw === 'string' ? String(raw).trim() : '';
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(value) || value < rule.min || value > rule.max) {
      this.fail(`"${name}" must be a whole number between ${rule.min} and ${rule.max}, got ${show(raw)}.${rule.fix ? ` ${rule.fix}` : ''}`);
    }
    return value;
  }

  /** A whole number of seconds within CloudFormation's hour (absent or empty: `fallback`). */
  public seconds(name: string, fallback: number): number {
    return this.integer(name, { fallback, min: 1, max: CUSTOM_RESOURCE_MAX_SECONDS });
  }

  /** A list of non-empty ids, trimmed, without duplicates (each would cost an API call for nothing). */
  public idList(name: string, what: string): string[] {
    const raw = this.props[name];
    if (raw === undefined || raw === '') return [];
    if (!Array.isArray(raw)) this.fail(`"${name}" must be a list of ${what}, got ${show(raw)}.`);
    const ids = raw.map((id) => (typeof id === 'string' ? id.trim() : id));
    if (ids.some((id) => typeof id !== 'string' || id === '')) {
      this.fail(`"${name}" must contain only non-empty ${what}, got ${show(raw)}.`);
    }
    return [...new Set(ids as string[])];
  }
}
