/**
 * A URL as the studio shows it in messages: without user name, password or query string, which may hold a key.
 * @example safeUrl("https://user:secret@example.com/v1?key=x") // "https://example.com/v1"
 */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    return parsed.toString();
  } catch {
    return "(invalid URL)";
  }
}
