// Projects: the folders the user chose for skein to work in (SKEIN_WORKDIR's
// roots are the list's initial content), and the pending requests to add one
// (an editor's session/new for a folder not yet in the list). Served by
// GET /api/projects and on the list socket (`projects` frames).
import { z } from 'zod';

const OBJECT = { error: 'the request body must be a JSON object' };
const FOLDER = '"folder" must be the absolute path of a folder';

export const ProjectSchema = z
  .object({
    /** The folder, symlinks resolved. */
    folder: z.string(),
    /** The folder no longer exists: shown, never used (remove it, or create it again). */
    missing: z.boolean().optional(),
    /** One of the roots this server was started with (SKEIN_WORKDIR): it stays while the server runs. */
    setting: z.boolean().optional(),
  })
  .meta({ id: 'Project', description: 'A folder the user chose for skein to work in.' });

export const PROJECT_REQUEST_STATES = ['pending', 'allowed', 'denied'] as const;

export const ProjectRequestSchema = z
  .object({
    id: z.string(),
    folder: z.string(),
    /** `allowed` at once when the folder was already inside a project. */
    state: z.enum(PROJECT_REQUEST_STATES),
    /** Who asked (an editor through `skein acp`). */
    from: z.string(),
  })
  .meta({ id: 'ProjectRequest', description: 'A request to add a folder to the projects, waiting for the user (or decided).' });

export const ProjectsListSchema = z.object({ projects: z.array(ProjectSchema), requests: z.array(ProjectRequestSchema) });

export const ProjectFolderBodySchema = z.object({ folder: z.string({ error: FOLDER }).min(1, { error: FOLDER }) }, OBJECT);
export const ProjectRequestBodySchema = z.object({ folder: z.string({ error: FOLDER }).min(1, { error: FOLDER }), from: z.string().max(100).optional() }, OBJECT);
export const ProjectDecisionBodySchema = z.object({ decision: z.enum(['allow', 'deny'], { error: '"decision" must be allow or deny' }) }, OBJECT);
export const ProjectWaitQuerySchema = z.object({ wait: z.string().regex(/^\d{1,3}$/, { error: '"wait" must be a number of seconds' }).optional() });
export const ProjectRemoveQuerySchema = z.object({ folder: z.string({ error: FOLDER }).min(1, { error: FOLDER }) });
