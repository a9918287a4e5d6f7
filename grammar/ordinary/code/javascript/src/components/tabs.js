// policyc ordinary sample: an everyday vanilla JavaScript UI component (DOM, events, ARIA).
// Written by hand for policyc as ordinary front-end code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/javascript/ to measure rule breadth.

const KEYS = {
  ArrowLeft: -1,
  ArrowRight: 1,
};

export class Tabs {
  constructor(root) {
    this.root = root;
    this.tabs = Array.from(root.querySelectorAll('[role="tab"]'));
    this.panels = this.tabs.map((tab) => document.getElementById(tab.getAttribute("aria-controls")));
    this.onClick = this.onClick.bind(this);
    this.onKeyDown = this.onKeyDown.bind(this);
  }

  mount() {
    this.tabs.forEach((tab) => {
      tab.addEventListener("click", this.onClick);
      tab.addEventListener("keydown", this.onKeyDown);
    });
    const selected = this.tabs.findIndex((tab) => tab.getAttribute("aria-selected") === "true");
    this.select(selected === -1 ? 0 : selected, { focus: false });
    return this;
  }

  unmount() {
    this.tabs.forEach((tab) => {
      tab.removeEventListener("click", this.onClick);
      tab.removeEventListener("keydown", this.onKeyDown);
    });
  }

  select(index, { focus = true } = {}) {
    this.tabs.forEach((tab, i) => {
      const active = i === index;
      tab.setAttribute("aria-selected", String(active));
      tab.tabIndex = active ? 0 : -1;
      this.panels[i].hidden = !active;
    });
    if (focus) {
      this.tabs[index].focus();
    }
    this.root.dispatchEvent(new CustomEvent("tabs:change", { detail: { index } }));
  }

  onClick(event) {
    const index = this.tabs.indexOf(event.currentTarget);
    if (index !== -1) {
      this.select(index);
    }
  }

  onKeyDown(event) {
    const current = this.tabs.indexOf(event.currentTarget);
    let next = null;
    if (event.key in KEYS) {
      next = (current + KEYS[event.key] + this.tabs.length) % this.tabs.length;
    } else if (event.key === "Home") {
      next = 0;
    } else if (event.key === "End") {
      next = this.tabs.length - 1;
    }
    if (next !== null) {
      event.preventDefault();
      this.select(next);
    }
  }
}

export function mountAll(selector = "[data-tabs]") {
  return Array.from(document.querySelectorAll(selector), (root) => new Tabs(root).mount());
}
