import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Pod Identity association as the stand-in serves it. */
export interface Association {
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly associationId: string;
}

/**
 * A local stand-in for the two EKS routes the verification leftovers check calls (moto has no Pod
 * Identity): GET /clusters/{name} (DescribeCluster) and GET /clusters/{name}/pod-identity-associations
 * (ListPodIdentityAssociations), answering with bodies in the shape of the EKS API reference.
 * Point the real SDK client at `url`. Loopback only.
 */
export class EksPodIdentityEndpoint {
  static async start(clusters: Record<string, Association[]>): Promise<EksPodIdentityEndpoint> {
    const endpoint = new EksPodIdentityEndpoint(clusters);
    await new Promise<void>((resolve) => endpoint.server.listen(0, '127.0.0.1', () => resolve()));
    endpoint.url = `http://127.0.0.1:${(endpoint.server.address() as AddressInfo).port}`;
    return endpoint;
  }

  url = '';
  readonly requests: string[] = [];
  private readonly server: http.Server;

  private constructor(private readonly clusters: Record<string, Association[]>) {
    this.server = http.createServer((req, res) => {
      this.requests.push(`${req.method} ${req.url}`);
      const [, , name, sub] = (req.url ?? '').split('?')[0].split('/').map(decodeURIComponent);
      const send = (status: number, body: unknown, type?: string) => {
        res.writeHead(status, { 'content-type': 'application/json', ...(type ? { 'x-amzn-errortype': type } : {}) });
        res.end(JSON.stringify(body));
      };
      const associations = this.clusters[name];
      if (!associations) return send(404, { message: `No cluster found for name: ${name}.` }, 'ResourceNotFoundException');
      if (sub === 'pod-identity-associations') {
        return send(200, {
          associations: associations.map((a) => ({
            clusterName: name,
            namespace: a.namespace,
            serviceAccount: a.serviceAccount,
            associationId: a.associationId,
            associationArn: `arn:aws:eks:us-east-1:111122223333:podidentityassociation/${name}/${a.associationId}`,
          })),
        });
      }
      return send(200, { cluster: { name, status: 'ACTIVE', arn: `arn:aws:eks:us-east-1:111122223333:cluster/${name}` } });
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
