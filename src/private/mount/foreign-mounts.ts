import { CfnOutput, CfnResource, Stack, Token } from 'aws-cdk-lib';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { IConstruct } from 'constructs';
import { propertyOverride, renderedProperties } from '../compat';
import { isMarked, mark } from '../construct-state';
import { spelled } from '../messages';

// Mounts made around the library: aws-cdk-lib's own Lambda and ECS/Batch EFS settings given an S3
// Files access point or file system, and task definitions the library mounted that something else
// launches. Each is found at synth, across the app, and named with its fix.

const LAMBDA_MOUNT = 'cdk-s3files-lambda.LambdaMount';
/**
 * Resource types that launch ECS tasks, and the properties that name what they launch: by the task
 * definition's family (Step Functions' EcsRunTask) or its ARN (a `Ref`, or an import of it from another stack).
 */
const LAUNCHERS: Record<string, string[]> = {
  'AWS::StepFunctions::StateMachine': ['DefinitionString', 'Definition'],
  'AWS::Events::Rule': ['Targets'],
  'AWS::Scheduler::Schedule': ['Target'],
  'AWS::Pipes::Pipe': ['Target', 'TargetParameters'],
};
const ECS_SERVICE_MOUNT = 'cdk-s3files-lambda.ServiceMount';

/** Records that LambdaMount set the function's file system config (the one Lambda allows). */
export function markLambdaMount(cfn: lambda.CfnFunction): void {
  mark(cfn, LAMBDA_MOUNT);
}

/** Records that EcsMount.onService mounted a service. */
export function markEcsServiceMount(service: IConstruct): void {
  mark(service, ECS_SERVICE_MOUNT);
}

const same = (stack: Stack, a: unknown, b: unknown) => JSON.stringify(stack.resolve(a)) === JSON.stringify(stack.resolve(b));

/**
 * Functions that mount the access point with a `FileSystemConfigs` entry LambdaMount did not set:
 * `lambda.FileSystem.fromEfsAccessPoint()` (elasticfilesystem grants, a dependency cycle) or
 * `fromS3FilesAccessPoint()` on its CfnAccessPoint (write on the whole file system, no
 * access-point condition, no waiter), named by what the function's role was granted.
 */
export function lambdaMountsAroundTheLibrary(accessPoint: IConstruct & { readonly accessPointArn: string }): string[] {
  return accessPoint.node.root.node.findAll().filter((c): c is lambda.CfnFunction => c instanceof lambda.CfnFunction).flatMap((fn) => {
    if (isMarked(fn, LAMBDA_MOUNT)) return [];
    const stack = Stack.of(fn);
    // Set through the L1, or with addPropertyOverride (whole, or one entry's field: then only the rendering shows it).
    const overridden = propertyOverride(fn, 'FileSystemConfigs') !== undefined;
    const configs = overridden ? renderedProperties(fn).FileSystemConfigs : stack.resolve(fn.fileSystemConfigs);
    if (configs === undefined || !JSON.stringify(configs).includes(JSON.stringify(stack.resolve(accessPoint.accessPointArn)))) return [];
    const efs = !overridden && grantedActions(fn).some((a) => a.startsWith('elasticfilesystem:'));
    const call = overridden ? '`addPropertyOverride(\'FileSystemConfigs\', …)`'
      : efs ? '`lambda.FileSystem.fromEfsAccessPoint()`' : '`lambda.FileSystem.fromS3FilesAccessPoint()` on its CfnAccessPoint';
    const why = overridden ? 'which grants the function\'s role nothing to mount it with and does not wait for the mount targets to be available'
      : efs ? 'which is for EFS: it grants elasticfilesystem actions, not s3files ones, and makes a dependency cycle CloudFormation rejects'
        : 'which grants s3files:ClientWrite on the whole file system without the access-point condition (`readOnly` cannot hold) and does not wait for the mount '
          + 'targets to be available';
    return [spelled(`${fn.node.scope?.node.path}: invalid \`filesystem\`: it mounts the S3 Files access point ${accessPoint.node.path} through ${call}, ${why}. `
      + 'Fix: leave `filesystem` unset and mount it with `LambdaMount.onFunction()` (or use `S3FilesMountedFunction`).')];
  });
}

/** The actions the policies attached to the function's role grant (for naming the call that mounted it). */
function grantedActions(fn: lambda.CfnFunction): string[] {
  const stack = Stack.of(fn);
  const role = stack.resolve(fn.role) as { 'Fn::GetAtt'?: [string, string] };
  const ref = JSON.stringify({ Ref: role['Fn::GetAtt']?.[0] });
  return fn.node.root.node.findAll().filter((c): c is iam.CfnPolicy => c instanceof iam.CfnPolicy && Stack.of(c) === stack)
    .filter((p) => JSON.stringify(stack.resolve(p.roles) ?? []).includes(ref))
    .flatMap((p) => (stack.resolve(p.policyDocument) as PolicyDocument).Statement ?? [])
    .flatMap((s) => [s.Action ?? []].flat());
}

interface PolicyDocument { readonly Statement?: Array<{ readonly Action?: string | string[] }> }
/** A volume as the ECS and Batch L1s render it: ECS's L1 spells the id filesystemId, Batch's fileSystemId. */
interface RenderedVolume {
  readonly name?: string;
  readonly efsVolumeConfiguration?: { readonly fileSystemId?: unknown; readonly filesystemId?: unknown };
}

/**
 * ECS task definitions and Batch job definitions whose EFS volume names this file system's id
 * (`efsVolumeConfiguration: { fileSystemId }`): no grant, and ECS told it is EFS.
 */
export function efsVolumesOfFileSystem(fileSystem: IConstruct & { readonly fileSystemId: string }): string[] {
  return fileSystem.node.root.node.findAll().flatMap((c) => {
    type JobContainer = batch.CfnJobDefinition.ContainerPropertiesProperty | undefined;
    const job = c instanceof batch.CfnJobDefinition ? c.containerProperties as JobContainer : undefined;
    const volumes = c instanceof ecs.CfnTaskDefinition ? c.volumes : job?.volumes;
    if (volumes === undefined) return [];
    const stack = Stack.of(c);
    const resolved = stack.resolve(volumes) as RenderedVolume[] | undefined;
    const efsId = (v: RenderedVolume) => v.efsVolumeConfiguration?.fileSystemId ?? v.efsVolumeConfiguration?.filesystemId;
    return (resolved ?? []).filter((v) => v.efsVolumeConfiguration && same(stack, efsId(v), fileSystem.fileSystemId))
      .map((v) => spelled(`${c.node.scope?.node.path}: invalid \`efsVolumeConfiguration\` of volume ${v.name}: its \`fileSystemId\` is the S3 Files file system `
        + `${fileSystem.node.path}, which ${c instanceof ecs.CfnTaskDefinition ? 'ECS' : 'Batch'} would mount as EFS with no S3 Files grant. `
        + `Fix: mount an access point of it with \`${c instanceof ecs.CfnTaskDefinition ? 'EcsMount.onTaskDefinition()' : 'BatchMount.onJobDefinition()'}\`.`));
  });
}

/**
 * Everything in the app that launches tasks of a task definition EcsMount mounted, other than
 * services given to `EcsMount.onService()`: a service never given to it (its tasks' only group is
 * their own, and the mount targets admit NFS only from the client group or the groups the library
 * lets in) is refused; another launcher (an EventBridge rule, a schedule, a state machine) is named
 * in a warning, since its network settings are its own.
 */
export function unmountedLaunchers(taskDefinition: ecs.TaskDefinition): { errors: string[]; others: string[] } {
  const cfn = taskDefinition.node.defaultChild as ecs.CfnTaskDefinition;
  const errors: string[] = [];
  const others: string[] = [];
  // A state machine's EcsRunTask names the family as a literal, in any stack: found by it, as a whole word.
  const family = Token.isUnresolved(taskDefinition.family) ? undefined
    : new RegExp(`(^|[^A-Za-z0-9_-])${taskDefinition.family.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_-])`);
  const home = Stack.of(cfn);
  const ref = JSON.stringify({ Ref: home.resolve(cfn.logicalId) });
  // Another stack names the ARN through an import of the export aws-cdk-lib made for it (at synth, before validation).
  const imports = home.node.findAll()
    .filter((o): o is CfnOutput => o instanceof CfnOutput && o.exportName !== undefined && same(home, o.value, { Ref: home.resolve(cfn.logicalId) }))
    .map((o) => JSON.stringify({ 'Fn::ImportValue': home.resolve(o.exportName) }));
  for (const c of taskDefinition.node.root.node.findAll()) {
    if (c instanceof ecs.BaseService) {
      if (c.taskDefinition === taskDefinition && !isMarked(c, ECS_SERVICE_MOUNT)) {
        errors.push(spelled(`${c.node.path}: invalid \`taskDefinition\`: it runs ${taskDefinition.node.path}, whose S3 Files volume `
          + 'the library mounted, but the service was never given to `EcsMount.onService()`, so its tasks cannot reach the mount targets (TCP 2049) and fail at launch. '
          + 'Fix: call `EcsMount.onService(service, accessPoint)` with the same access point (it keeps the options `onTaskDefinition()` was given, lets the tasks in over NFS, '
          + 'checks their AZs and waits for the mount targets).'));
      }
    } else if (c instanceof CfnResource && LAUNCHERS[c.cfnResourceType]) {
      const properties = renderedProperties(c);
      const named = JSON.stringify(LAUNCHERS[c.cfnResourceType].map((p) => properties[p] ?? null));
      const names = Stack.of(c) === home ? named.includes(ref) : imports.some((i) => named.includes(i));
      if (names || family?.test(named)) others.push(c.node.path);
    }
  }
  return { errors, others };
}
