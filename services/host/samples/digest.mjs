// Digest: SHA-256 (or SHA-1, SHA-384, SHA-512) of UTF-8 text or of base64 bytes, as hex and base64.
function fromBase64(text) {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function toBase64(bytes) {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export default {
  async fetch(request) {
    const { text, base64, algorithm = "SHA-256" } = await request.json();
    let bytes;
    try {
      bytes = text !== undefined ? new TextEncoder().encode(text) : fromBase64(base64);
    } catch {
      return Response.json({ error: "base64 is not valid base64" }, { status: 400 });
    }
    const digest = new Uint8Array(await crypto.subtle.digest(algorithm, bytes));
    return Response.json({
      algorithm,
      bytes: bytes.length,
      hex: [...digest].map((b) => b.toString(16).padStart(2, "0")).join(""),
      base64: toBase64(digest),
    });
  },
};
