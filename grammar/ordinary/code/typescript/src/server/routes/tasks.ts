// policyc ordinary sample: an everyday Express router in TypeScript (zod validation, async handlers).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/typescript/ to measure rule breadth.

import { Router, type NextFunction, type Request, type Response } from "express";
import { z } from "zod";

import { requireUser } from "../middleware/auth";
import type { TaskRepository } from "../repositories/tasks";

const TaskInput = z.object({
  title: z.string().trim().min(1).max(200),
  notes: z.string().max(5000).optional(),
  dueDate: z.coerce.date().optional(),
  priority: z.enum(["low", "normal", "high"]).default("normal"),
});

const ListQuery = z.object({
  done: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().optional(),
});

type Handler = (req: Request, res: Response, next: NextFunction) => Promise<void>;

const asyncHandler =
  (handler: Handler) =>
  (req: Request, res: Response, next: NextFunction): void => {
    handler(req, res, next).catch(next);
  };

export function tasksRouter(tasks: TaskRepository): Router {
  const router = Router();
  router.use(requireUser);

  router.get(
    "/",
    asyncHandler(async (req, res) => {
      const query = ListQuery.parse(req.query);
      const page = await tasks.list(req.user!.id, query);
      res.json(page);
    }),
  );

  router.post(
    "/",
    asyncHandler(async (req, res) => {
      const parsed = TaskInput.safeParse(req.body);
      if (!parsed.success) {
        res.status(400).json({ error: "Invalid task", issues: parsed.error.issues });
        return;
      }
      const task = await tasks.create(req.user!.id, parsed.data);
      res.status(201).location(`/tasks/${task.id}`).json(task);
    }),
  );

  router.get(
    "/:id",
    asyncHandler(async (req, res) => {
      const task = await tasks.find(req.user!.id, req.params.id);
      if (!task) {
        res.status(404).json({ error: "Task not found" });
        return;
      }
      res.json(task);
    }),
  );

  router.patch(
    "/:id",
    asyncHandler(async (req, res) => {
      const parsed = TaskInput.partial().extend({ done: z.boolean().optional() }).safeParse(req.body);
      if (!parsed.success) {
        res.status(400).json({ error: "Invalid task", issues: parsed.error.issues });
        return;
      }
      const task = await tasks.update(req.user!.id, req.params.id, parsed.data);
      if (!task) {
        res.status(404).json({ error: "Task not found" });
        return;
      }
      res.json(task);
    }),
  );

  router.delete(
    "/:id",
    asyncHandler(async (req, res) => {
      const removed = await tasks.remove(req.user!.id, req.params.id);
      res.status(removed ? 204 : 404).end();
    }),
  );

  return router;
}
