// policyc ordinary sample: an everyday React form component (controlled inputs, validation, submit state).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/tsx/ to measure rule breadth.

import { useState, type FormEvent } from "react";

import { Button } from "./Button";
import styles from "./SettingsForm.module.css";

export interface Settings {
  displayName: string;
  email: string;
  timezone: string;
  weeklyDigest: boolean;
}

interface SettingsFormProps {
  initial: Settings;
  timezones: string[];
  onSave: (settings: Settings) => Promise<void>;
}

type Errors = Partial<Record<keyof Settings, string>>;

function validate(settings: Settings): Errors {
  const errors: Errors = {};
  if (settings.displayName.trim().length < 2) {
    errors.displayName = "Use at least two characters.";
  }
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(settings.email)) {
    errors.email = "Enter a valid email address.";
  }
  return errors;
}

export function SettingsForm({ initial, timezones, onSave }: SettingsFormProps) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Errors>({});
  const [status, setStatus] = useState<"idle" | "saving" | "saved" | "failed">("idle");

  function update<K extends keyof Settings>(key: K, value: Settings[K]) {
    setValues((current) => ({ ...current, [key]: value }));
    setStatus("idle");
  }

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = validate(values);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      return;
    }
    setStatus("saving");
    try {
      await onSave(values);
      setStatus("saved");
    } catch {
      setStatus("failed");
    }
  }

  return (
    <form className={styles.form} onSubmit={handleSubmit} noValidate>
      <label>
        Display name
        <input
          value={values.displayName}
          aria-invalid={Boolean(errors.displayName)}
          onChange={(event) => update("displayName", event.target.value)}
        />
        {errors.displayName && <span className={styles.error}>{errors.displayName}</span>}
      </label>

      <label>
        Email
        <input
          type="email"
          value={values.email}
          aria-invalid={Boolean(errors.email)}
          onChange={(event) => update("email", event.target.value)}
        />
        {errors.email && <span className={styles.error}>{errors.email}</span>}
      </label>

      <label>
        Time zone
        <select value={values.timezone} onChange={(event) => update("timezone", event.target.value)}>
          {timezones.map((zone) => (
            <option key={zone} value={zone}>
              {zone}
            </option>
          ))}
        </select>
      </label>

      <label className={styles.checkbox}>
        <input
          type="checkbox"
          checked={values.weeklyDigest}
          onChange={(event) => update("weeklyDigest", event.target.checked)}
        />
        Send me a weekly digest
      </label>

      <div className={styles.actions}>
        <Button type="submit" variant="primary" disabled={status === "saving"}>
          {status === "saving" ? "Saving…" : "Save changes"}
        </Button>
        {status === "saved" && <span role="status">Saved.</span>}
        {status === "failed" && <span role="alert">Could not save. Try again.</span>}
      </div>
    </form>
  );
}
