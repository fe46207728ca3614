// Text statistics: characters, words, lines, sentences, average word length and the most frequent words.
export default {
  async fetch(request) {
    const { text, top = 10 } = await request.json();
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu) ?? [];
    const counts = new Map();
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    const topWords = [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, top)
      .map(([word, count]) => ({ word, count }));
    const letters = words.reduce((sum, word) => sum + [...word].length, 0);
    return Response.json({
      characters: [...text].length,
      words: words.length,
      uniqueWords: counts.size,
      lines: text === "" ? 0 : text.split(/\r\n|\r|\n/).length,
      sentences: (text.match(/[^.!?]*[\p{L}\p{N}][^.!?]*(?:[.!?]+|$)/gu) ?? []).length,
      averageWordLength: words.length === 0 ? 0 : Math.round((letters / words.length) * 100) / 100,
      topWords,
    });
  },
};
