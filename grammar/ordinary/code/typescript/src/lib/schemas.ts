// policyc ordinary sample: everyday zod schemas and inferred TypeScript types for an API client.
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/typescript/ to measure rule breadth.

import { z } from "zod";

export const NoteSchema = z.object({
  id: z.string().uuid(),
  title: z.string().min(1).max(120),
  body: z.string().max(20_000).default(""),
  tags: z.array(z.string().min(1).max(30)).max(12).default([]),
  location: z
    .object({
      lat: z.number().min(-90).max(90),
      lng: z.number().min(-180).max(180),
      label: z.string().optional(),
    })
    .optional(),
  photoUrls: z.array(z.string().url()).max(8).default([]),
  observedAt: z.coerce.date(),
  createdAt: z.coerce.date(),
  updatedAt: z.coerce.date(),
});

export type Note = z.infer<typeof NoteSchema>;

export const NewNoteSchema = NoteSchema.pick({
  title: true,
  body: true,
  tags: true,
  location: true,
  observedAt: true,
});

export type NewNote = z.input<typeof NewNoteSchema>;

export const NotePageSchema = z.object({
  items: z.array(NoteSchema),
  nextCursor: z.string().nullable(),
});

export type NotePage = z.infer<typeof NotePageSchema>;

export const ApiErrorSchema = z.object({
  error: z.string(),
  issues: z
    .array(
      z.object({
        path: z.array(z.union([z.string(), z.number()])),
        message: z.string(),
      }),
    )
    .optional(),
});

export type ApiError = z.infer<typeof ApiErrorSchema>;

export function parseOrThrow<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const result = schema.safeParse(data);
  if (!result.success) {
    const details = result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw new Error(`Unexpected ${what} from the server: ${details.join("; ")}`);
  }
  return result.data;
}

export function fieldErrors(error: ApiError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues ?? []) {
    const key = issue.path.join(".");
    errors[key] ??= issue.message;
  }
  return errors;
}
