// GET /api/sessions/:id/images/:name: the bytes of an image a user message
// carried. Only a file a `user` event of that session names is served: the
// name is looked up in the log, never joined onto a path as given, and only a
// file inside the session's own folder is served (images/image-lookup.ts),
// compared again by real paths here.
import fs from 'node:fs';
import path from 'node:path';
import type express from 'express';
import type { Sessions } from '../sessions/sessions.js';
import { imageToServe } from '../images/image-lookup.js';

export function mountImageRoute(app: express.Express, sessions: Sessions): void {
  app.get('/api/sessions/:id/images/:name', async (req, res) => {
    // open(): on PostgreSQL a session not loaded since the start has its events read first.
    const live = await sessions.open(req.params.id);
    if (!live) return void res.status(404).json({ error: 'unknown session' });
    const name = req.params.name;
    const image = imageToServe(live.session.log.all(), name, path.dirname(live.session.log.file));
    if (image) {
      // Compared by real paths too, so a link in the images folder (or the folder itself a link) to a file
      // outside is refused, and the file sent is the one checked.
      const own = realPath(path.dirname(live.session.log.file));
      const file = realPath(image.file);
      if (file === undefined) return void res.status(404).json({ error: 'the image file is gone from the data folder' });
      if (own !== undefined && file.startsWith(own + path.sep)) {
        res.setHeader('Cache-Control', 'private, max-age=31536000, immutable'); // named by its content's hash
        res.type(image.mediaType);
        return void res.sendFile(file, { dotfiles: 'allow' }, (err) => {
          if (err && !res.headersSent) res.status(404).json({ error: 'the image file is gone from the data folder' });
        });
      }
    }
    res.status(404).json({ error: `no image ${JSON.stringify(name)} in this session` });
  });
}

function realPath(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}
