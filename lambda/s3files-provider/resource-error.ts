/**
 * The provider's one error type: what CloudFormation shows the user, always prefixed with the
 * resource type it is about, so a guard's or a cleaner's failure is never read as the waiter's.
 */
export class ResourceError extends Error {
  constructor(public readonly resourceType: string, message: string) {
    super(`${resourceType}: ${message}`);
    this.name = 'ResourceError';
  }
}
