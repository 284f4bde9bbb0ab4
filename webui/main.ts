import './skein-app.js';
