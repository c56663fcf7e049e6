/**
 * Dotted-quad IPv4 text (what node:net's isIPv4 accepts). Written out because importing node:net
 * for it loads the socket stack, ~10 ms of startup for the simulator, which never opens a socket.
 */
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);

export function isIPv4(text: string): boolean {
  return IPV4.test(text);
}
