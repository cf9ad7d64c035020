import * as fs from 'fs';
import * as path from 'path';
import { synthExample } from './util/synth-example';

// docs/kubernetes.md shows examples/readme/eks.{ts,py} and Eks.java exactly (the bindings test
// synthesizes all three), and the TypeScript one synthesizes what the page says it does.

const root = path.join(__dirname, '..');
const page = fs.readFileSync(path.join(root, 'docs', 'kubernetes.md'), 'utf8');

/** The first fenced block of `lang` after `heading` in docs/kubernetes.md. */
function block(heading: string, lang: string): string {
  const start = page.indexOf(heading);
  if (start < 0) throw new Error(`docs/kubernetes.md has no '${heading}'`);
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(page.slice(start));
  if (!match) throw new Error(`docs/kubernetes.md has no ${lang} block after '${heading}'`);
  return match[1];
}

test.each([
  ['**TypeScript**', 'eks.ts', 'ts'],
  ['**Python**', 'eks.py', 'python'],
  ['**Java**', 'Eks.java', 'java'],
])('the %s program is examples/readme/%s', (heading, file, lang) => {
  expect(block(heading, lang)).toEqual(fs.readFileSync(path.join(root, 'examples', 'readme', file), 'utf8'));
});

test('the README links the page from its section', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Kubernetes (EKS)'));
  expect(section.slice(0, section.indexOf('\n### ', 5))).toContain('](docs/kubernetes.md)');
});

test('the program synthesizes the driver add-on, its Pod Identity associations, a volume, a storage class and the pod', () => {
  const resources = Object.values<any>(synthExample('eks.ts').Kubernetes.Resources);
  const types = resources.map((r) => r.Type);
  expect(resources.filter((r) => r.Type === 'AWS::EKS::Addon').map((r) => r.Properties)).toEqual([
    { AddonName: 'aws-efs-csi-driver', AddonVersion: 'v3.0.0-eksbuild.1', ClusterName: 'my-cluster' },
  ]);
  expect(resources.filter((r) => r.Type === 'AWS::EKS::PodIdentityAssociation').map((r) => r.Properties.ServiceAccount).sort())
    .toEqual(['efs-csi-controller-sa', 'efs-csi-node-sa']);
  expect(types.filter((t) => t === 'Custom::AWSCDK-EKS-KubernetesResource')).toHaveLength(3);
});
