/** The node's message: UTF-8 text, or its hex (broadcasttransaction with visible=false). */
export function nodeMessage(message: unknown): string {
  if (typeof message !== 'string') return '';
  if (message.length > 0 && message.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(message)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(message, 'hex'));
    } catch {
      return message;
    }
  }
  return message;
}
