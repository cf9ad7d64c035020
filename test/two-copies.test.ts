import * as fs from 'fs';
import * as path from 'path';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as lib from '../src';
import { FN, isolatedVpc, newStack, resourcesOfType } from './util/template';

// A monorepo, or a construct library that depends on this one, loads a second copy of the library
// beside the app's own (one aws-cdk-lib): classes of the two copies are different class objects,
// so the library finds what it keeps in a stack by id and by what it does, never with instanceof.

/** A second copy of src/ (its own module instances), with the handler bundles where it looks for them. */
function secondCopy(): typeof lib {
  const dir = fs.mkdtempSync(path.join(__dirname, '.copy-'));
  fs.cpSync(path.join(__dirname, '..', 'src'), path.join(dir, 'src'), { recursive: true });
  fs.symlinkSync(path.join(__dirname, '..', 'assets'), path.join(dir, 'assets'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(dir, 'src'));
}

describe('two copies of the library in one app', () => {
  const other = secondCopy();

  test('they are two copies (the premise)', () => {
    expect(other.S3FilesFileSystem).not.toBe(lib.S3FilesFileSystem);
  });

  test('file systems and access points of both copies share the stack\'s one provider', () => {
    // GIVEN a stack where the app's copy made the provider
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const ours = new lib.S3FilesFileSystem(stack, 'Ours', { vpc });
    // WHEN the second copy adds a file system and an access point of it to the same stack
    const theirs = new other.S3FilesFileSystem(stack, 'Theirs', { vpc });
    theirs.addAccessPoint('Ap', { path: '/a' });
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc });
    lib.LambdaMount.onFunction(fn, ours.addAccessPoint('Mine', { path: '/m' }));
    // THEN one provider serves both
    const t = Template.fromStack(stack);
    expect(resourcesOfType(t, 'AWS::StepFunctions::StateMachine')).toHaveLength(1);
    expect(resourcesOfType(t, 'AWS::S3Files::FileSystem')).toHaveLength(2);
  });

  test('a mount of one copy takes an access point of the other', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const theirs = new other.S3FilesFileSystem(stack, 'Theirs', { vpc });
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc });
    lib.LambdaMount.onFunction(fn, theirs.addAccessPoint('Ap', { path: '/a' }));
    expect(resourcesOfType(Template.fromStack(stack), 'AWS::S3Files::AccessPoint')).toHaveLength(1);
  });
});
