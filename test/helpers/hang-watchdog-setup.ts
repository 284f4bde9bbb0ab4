// Runs before every test file (vite.config.ts setupFiles): a spin or a file that never ends fails the run (hang-watchdog.ts).
import { armHangWatchdog } from './hang-watchdog.js';

armHangWatchdog();
