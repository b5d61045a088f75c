/** Bytes for a message: `512 KiB`, `1.5 MiB` (the server, the proxy and the store say sizes alike). */
export function formatBytes(bytes: number): string {
  const kib = bytes / 1024;
  if (kib < 1024) return `${Number(kib.toFixed(1))} KiB`;
  return `${Number((kib / 1024).toFixed(1))} MiB`;
}
