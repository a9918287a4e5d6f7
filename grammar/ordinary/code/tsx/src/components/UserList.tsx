// policyc ordinary sample: an everyday React component in TSX (hooks, props, list rendering).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/tsx/ to measure rule breadth.

import { useEffect, useMemo, useState } from "react";

import { fetchUsers, type User } from "../api/users";
import { Avatar } from "./Avatar";
import { Spinner } from "./Spinner";
import styles from "./UserList.module.css";

interface UserListProps {
  teamId: string;
  onSelect?: (user: User) => void;
  pageSize?: number;
}

export function UserList({ teamId, onSelect, pageSize = 20 }: UserListProps) {
  const [users, setUsers] = useState<User[]>([]);
  const [query, setQuery] = useState("");
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    fetchUsers(teamId, { signal: controller.signal })
      .then((result) => {
        setUsers(result);
        setError(null);
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) {
          setError(err instanceof Error ? err.message : "Could not load users");
        }
      })
      .finally(() => setLoading(false));
    return () => controller.abort();
  }, [teamId]);

  const visible = useMemo(() => {
    const needle = query.trim().toLowerCase();
    const matching = needle
      ? users.filter((user) => user.name.toLowerCase().includes(needle) || user.email.includes(needle))
      : users;
    return matching.slice(0, pageSize);
  }, [users, query, pageSize]);

  if (loading) {
    return <Spinner label="Loading users" />;
  }

  if (error) {
    return (
      <div role="alert" className={styles.error}>
        {error}
      </div>
    );
  }

  return (
    <section className={styles.list}>
      <label className={styles.search}>
        Search
        <input
          type="search"
          value={query}
          placeholder="Name or email"
          onChange={(event) => setQuery(event.target.value)}
        />
      </label>
      {visible.length === 0 ? (
        <p className={styles.empty}>No users match “{query}”.</p>
      ) : (
        <ul>
          {visible.map((user) => (
            <li key={user.id}>
              <button type="button" className={styles.row} onClick={() => onSelect?.(user)}>
                <Avatar src={user.avatarUrl} name={user.name} size={32} />
                <span className={styles.name}>{user.name}</span>
                <span className={styles.email}>{user.email}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <footer className={styles.footer}>
        Showing {visible.length} of {users.length}
      </footer>
    </section>
  );
}
