// policyc ordinary sample: an everyday JavaScript module (fetch wrapper with retries, ES modules).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/javascript/ to measure rule breadth.

const DEFAULT_TIMEOUT_MS = 10_000;
const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

export class HttpError extends Error {
  constructor(response, body) {
    super(`Request failed with status ${response.status}`);
    this.name = "HttpError";
    this.status = response.status;
    this.body = body;
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function backoff(attempt, baseMs = 200) {
  const jitter = Math.random() * baseMs;
  return Math.min(baseMs * 2 ** attempt + jitter, 5_000);
}

export function createClient({ baseUrl, headers = {}, retries = 2, timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
  async function request(method, path, { body, query, signal } = {}) {
    const url = new URL(path, baseUrl);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) {
        url.searchParams.set(key, String(value));
      }
    }

    for (let attempt = 0; ; attempt += 1) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      signal?.addEventListener("abort", () => controller.abort(), { once: true });
      try {
        const response = await fetch(url, {
          method,
          headers: { Accept: "application/json", ...headers, ...(body ? { "Content-Type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
          signal: controller.signal,
        });
        if (response.ok) {
          return response.status === 204 ? null : await response.json();
        }
        if (attempt < retries && RETRYABLE_STATUS.has(response.status)) {
          await sleep(backoff(attempt));
          continue;
        }
        const text = await response.text();
        throw new HttpError(response, text);
      } catch (error) {
        if (error instanceof HttpError || attempt >= retries || signal?.aborted) {
          throw error;
        }
        await sleep(backoff(attempt));
      } finally {
        clearTimeout(timer);
      }
    }
  }

  return {
    get: (path, options) => request("GET", path, options),
    post: (path, body, options) => request("POST", path, { ...options, body }),
    put: (path, body, options) => request("PUT", path, { ...options, body }),
    delete: (path, options) => request("DELETE", path, options),
  };
}
