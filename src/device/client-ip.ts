// `client_ip` / `runtime_transfer_host` (device-protocol.md §3): the local address of a UDP socket
// connected to the backend host. Connecting a UDP socket sends no packet; it only picks the route.
import dgram from "node:dgram";
import net from "node:net";

export async function localAddressToward(host: string, port: number, timeoutMs = 2_000): Promise<string> {
  const family = net.isIPv6(host) ? "udp6" : "udp4";
  return new Promise<string>((resolve) => {
    const socket = dgram.createSocket(family);
    let settled = false;
    const finish = (address: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        socket.close();
      } catch {
        // already closed
      }
      resolve(address);
    };
    const timer = setTimeout(() => finish("127.0.0.1"), timeoutMs);
    timer.unref?.();
    socket.on("error", () => finish("127.0.0.1"));
    try {
      socket.connect(port || 80, host, () => {
        try {
          const address = socket.address().address;
          finish(address && address !== "0.0.0.0" && address !== "::" ? address : "127.0.0.1");
        } catch {
          finish("127.0.0.1");
        }
      });
    } catch {
      finish("127.0.0.1");
    }
  });
}
