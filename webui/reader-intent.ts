// Whether the reader is scrolling right now, as opposed to layout moving
// scrollTop: a wheel, touch or key in the element counts for a moment after
// it, a pointer held down (the scrollbar, a selection being dragged) counts
// until it is released. The timeline leaves the bottom only on the former.

/** A wheel, touch or key counts as the reader scrolling for this long after it. */
const INTENT_MS = 800;
const GESTURES = ['wheel', 'touchstart', 'touchmove', 'keydown'] as const;

export class ReaderIntent {
  private until = 0;
  private held = false;
  private host: HTMLElement | null = null;

  attach(host: HTMLElement) {
    this.host = host;
    for (const type of GESTURES) host.addEventListener(type, this.gesture, { passive: true });
    host.addEventListener('pointerdown', this.press, { passive: true });
    window.addEventListener('pointerup', this.release, { passive: true });
    window.addEventListener('pointercancel', this.release, { passive: true });
  }

  detach() {
    for (const type of GESTURES) this.host?.removeEventListener(type, this.gesture);
    this.host?.removeEventListener('pointerdown', this.press);
    window.removeEventListener('pointerup', this.release);
    window.removeEventListener('pointercancel', this.release);
    this.host = null;
  }

  /** The reader asked to go somewhere (sent a message, pressed End): their last wheel or key no longer counts as scrolling. */
  settle() {
    this.until = 0;
  }

  scrolling(): boolean {
    return this.held || performance.now() < this.until;
  }

  private readonly gesture = () => {
    this.until = performance.now() + INTENT_MS;
  };

  private readonly press = () => {
    this.held = true;
  };

  private readonly release = () => {
    if (!this.held) return;
    this.held = false;
    this.gesture(); // a flung scrollbar may still be settling
  };
}
