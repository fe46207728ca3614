// Echo: answers { echo: <request body> } for any JSON object.
export default {
  async fetch(request) {
    return Response.json({ echo: await request.json() });
  },
};
