// policyc ordinary sample: an everyday Jest test file with a mocked fetch.
// Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/javascript/ to measure rule breadth.

import { jest } from "@jest/globals";

import { createClient, HttpError } from "../src/lib/http-client.js";

function jsonResponse(status, body) {
  return {
    ok: status >= 200 && status < 300,
    status,
    json: async () => body,
    text: async () => JSON.stringify(body),
  };
}

describe("createClient", () => {
  beforeEach(() => {
    global.fetch = jest.fn();
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  test("GET builds the URL with query parameters", async () => {
    fetch.mockResolvedValueOnce(jsonResponse(200, { items: [] }));
    const client = createClient({ baseUrl: "https://api.example.com" });

    const result = await client.get("/items", { query: { page: 2, tag: undefined } });

    expect(result).toEqual({ items: [] });
    const [url] = fetch.mock.calls[0];
    expect(url.toString()).toBe("https://api.example.com/items?page=2");
  });

  test("POST sends a JSON body", async () => {
    fetch.mockResolvedValueOnce(jsonResponse(201, { id: 7 }));
    const client = createClient({ baseUrl: "https://api.example.com" });

    await client.post("/items", { name: "lamp" });

    const [, options] = fetch.mock.calls[0];
    expect(options.method).toBe("POST");
    expect(options.headers["Content-Type"]).toBe("application/json");
    expect(JSON.parse(options.body)).toEqual({ name: "lamp" });
  });

  test("retries on 503 and then succeeds", async () => {
    fetch
      .mockResolvedValueOnce(jsonResponse(503, {}))
      .mockResolvedValueOnce(jsonResponse(200, { ok: true }));
    const client = createClient({ baseUrl: "https://api.example.com", retries: 1 });

    await expect(client.get("/status")).resolves.toEqual({ ok: true });
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  test("a 404 is not retried", async () => {
    fetch.mockResolvedValue(jsonResponse(404, { error: "missing" }));
    const client = createClient({ baseUrl: "https://api.example.com", retries: 3 });

    await expect(client.get("/items/9")).rejects.toBeInstanceOf(HttpError);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
