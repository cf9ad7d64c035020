export * from './s3files-file-system';
export * from './s3files-access-point';
export * from './s3files-mounted-function';
export * from './mount/lambda';
export * from './mount/ecs';
export * from './mount/ec2';
export * from './mount/batch';
export * from './mount/agentcore';
