import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/**
 * A listener in a stopped child process with a full accept queue: the kernel drops further SYNs,
 * so a new connection hangs in the handshake.
 */
export async function startStalledListener(): Promise<{ url: string; close(): Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['-e', "const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>console.log(s.address().port))"],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
    child.once('error', reject);
  });
  child.kill('SIGSTOP');
  const fillers: net.Socket[] = [];
  for (let i = 0; i < 8; i++) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    fillers.push(socket);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  return {
    url: `http://127.0.0.1:${port}/v1`,
    async close() {
      for (const socket of fillers) socket.destroy();
      child.kill('SIGKILL');
    },
  };
}
