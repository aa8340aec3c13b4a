import net from 'node:net';

/** Writes `request` as is on a new connection and reads the answer until the server closes it. */
export function rawHttp(port: number, host: string, request: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host, () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = answer.split('\r\n\r\n');
      resolve({ status: Number(head?.split(' ')[1]), body: body ? JSON.parse(body) : undefined });
    });
  });
}
