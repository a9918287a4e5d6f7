// policyc ordinary sample: an everyday TypeScript repository class (interfaces, generics, SQL via a client).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/typescript/ to measure rule breadth.

import type { Pool } from "pg";

export type Priority = "low" | "normal" | "high";

export interface Task {
  id: string;
  ownerId: string;
  title: string;
  notes?: string;
  dueDate?: Date;
  priority: Priority;
  done: boolean;
  createdAt: Date;
}

export interface TaskPage {
  items: Task[];
  nextCursor: string | null;
}

export interface ListOptions {
  done?: boolean;
  limit: number;
  cursor?: string;
}

type NewTask = Pick<Task, "title" | "priority"> & Partial<Pick<Task, "notes" | "dueDate">>;
type TaskPatch = Partial<NewTask & Pick<Task, "done">>;

interface TaskRow {
  id: string;
  owner_id: string;
  title: string;
  notes: string | null;
  due_date: Date | null;
  priority: Priority;
  done: boolean;
  created_at: Date;
}

function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    ownerId: row.owner_id,
    title: row.title,
    notes: row.notes ?? undefined,
    dueDate: row.due_date ?? undefined,
    priority: row.priority,
    done: row.done,
    createdAt: row.created_at,
  };
}

const COLUMNS: Record<keyof TaskPatch, string> = {
  title: "title",
  notes: "notes",
  dueDate: "due_date",
  priority: "priority",
  done: "done",
};

export class TaskRepository {
  constructor(private readonly pool: Pool) {}

  async list(ownerId: string, { done, limit, cursor }: ListOptions): Promise<TaskPage> {
    const params: unknown[] = [ownerId];
    let sql = "SELECT * FROM tasks WHERE owner_id = $1";
    if (done !== undefined) {
      params.push(done);
      sql += ` AND done = $${params.length}`;
    }
    if (cursor) {
      params.push(cursor);
      sql += ` AND created_at < (SELECT created_at FROM tasks WHERE id = $${params.length})`;
    }
    params.push(limit + 1);
    sql += ` ORDER BY created_at DESC LIMIT $${params.length}`;

    const { rows } = await this.pool.query<TaskRow>(sql, params);
    const items = rows.slice(0, limit).map(toTask);
    return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
  }

  async find(ownerId: string, id: string): Promise<Task | undefined> {
    const { rows } = await this.pool.query<TaskRow>("SELECT * FROM tasks WHERE owner_id = $1 AND id = $2", [ownerId, id]);
    return rows[0] && toTask(rows[0]);
  }

  async create(ownerId: string, input: NewTask): Promise<Task> {
    const { rows } = await this.pool.query<TaskRow>(
      `INSERT INTO tasks (owner_id, title, notes, due_date, priority)
       VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [ownerId, input.title, input.notes ?? null, input.dueDate ?? null, input.priority],
    );
    return toTask(rows[0]!);
  }

  async update(ownerId: string, id: string, patch: TaskPatch): Promise<Task | undefined> {
    const entries = Object.entries(patch).filter(([, value]) => value !== undefined) as Array<[keyof TaskPatch, unknown]>;
    if (entries.length === 0) {
      return this.find(ownerId, id);
    }
    const assignments = entries.map(([key], index) => `${COLUMNS[key]} = $${index + 3}`);
    const { rows } = await this.pool.query<TaskRow>(
      `UPDATE tasks SET ${assignments.join(", ")} WHERE owner_id = $1 AND id = $2 RETURNING *`,
      [ownerId, id, ...entries.map(([, value]) => value)],
    );
    return rows[0] && toTask(rows[0]);
  }

  async remove(ownerId: string, id: string): Promise<boolean> {
    const result = await this.pool.query("DELETE FROM tasks WHERE owner_id = $1 AND id = $2", [ownerId, id]);
    return (result.rowCount ?? 0) > 0;
  }
}
