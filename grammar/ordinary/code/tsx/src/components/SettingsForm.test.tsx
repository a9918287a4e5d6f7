// policyc ordinary sample: an everyday React Testing Library test (user events, async assertions).
// Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/tsx/ to measure rule breadth.

import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import { SettingsForm, type Settings } from "./SettingsForm";

const initial: Settings = {
  displayName: "Ada",
  email: "ada@example.com",
  timezone: "Europe/London",
  weeklyDigest: false,
};

function setup(onSave = vi.fn().mockResolvedValue(undefined)) {
  const user = userEvent.setup();
  render(<SettingsForm initial={initial} timezones={["Europe/London", "Asia/Tokyo"]} onSave={onSave} />);
  return { user, onSave };
}

describe("SettingsForm", () => {
  it("saves the edited values", async () => {
    const { user, onSave } = setup();

    await user.clear(screen.getByLabelText("Display name"));
    await user.type(screen.getByLabelText("Display name"), "Ada L.");
    await user.selectOptions(screen.getByLabelText("Time zone"), "Asia/Tokyo");
    await user.click(screen.getByLabelText("Send me a weekly digest"));
    await user.click(screen.getByRole("button", { name: "Save changes" }));

    expect(onSave).toHaveBeenCalledWith({
      displayName: "Ada L.",
      email: "ada@example.com",
      timezone: "Asia/Tokyo",
      weeklyDigest: true,
    });
    expect(await screen.findByRole("status")).toHaveTextContent("Saved.");
  });

  it("shows validation errors and does not save", async () => {
    const { user, onSave } = setup();

    await user.clear(screen.getByLabelText("Email"));
    await user.type(screen.getByLabelText("Email"), "not-an-email");
    await user.click(screen.getByRole("button", { name: "Save changes" }));

    expect(screen.getByText("Enter a valid email address.")).toBeInTheDocument();
    expect(onSave).not.toHaveBeenCalled();
  });

  it("reports a failed save", async () => {
    const { user } = setup(vi.fn().mockRejectedValue(new Error("network")));

    await user.click(screen.getByRole("button", { name: "Save changes" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("Could not save");
  });
});
