/**
 * Checked at compile time (the `tsc` phase of test:ci), not by jest: every field of a public
 * options interface reaches the private module that reads it. Private modules mirror the public
 * options instead of importing them (public modules import private ones, never the reverse), so a
 * field added to the public interface alone would otherwise be dropped without a word.
 */
import type { EksDriverOptions, EksStorageClassOptions, S3FilesClientOptions } from '../../src';
import type { DriverOptions } from '../../src/private/mount/eks-driver';
import type { addStorageClass } from '../../src/private/mount/eks-mount';
import type { ClientOptions } from '../../src/private/mount/mount-pipeline';

/** The public fields the private side does not declare. */
type Unread<Public, Private> = Exclude<keyof Public, keyof Private>;
/** A type error names the fields when `T` is not empty. */
type None<T extends never> = T;

export type OptionMirrors = [
  None<Unread<S3FilesClientOptions, ClientOptions>>,
  None<Unread<EksDriverOptions, DriverOptions>>,
  None<Unread<EksStorageClassOptions, Parameters<typeof addStorageClass>[2]>>,
];
