// google.script.run / google.script.host for dialogs served by sim/ui/dialog-server.ts.
// Apps Script's client API as documented: a runner whose with* methods return a new runner, any
// other property is a server function; calls are asynchronous, handlers get (value, userObject).
(() => {
  function serialize(value) {
    // A <form> passed as the only argument arrives as an object of its named fields.
    if (typeof HTMLFormElement !== 'undefined' && value instanceof HTMLFormElement) {
      const out = {};
      for (const el of value.elements) {
        if (!el.name || el.type === 'file') continue;
        if ((el.type === 'checkbox' || el.type === 'radio') && !el.checked) continue;
        out[el.name] = el.value;
      }
      return out;
    }
    return value;
  }
  function post(path, body) {
    return fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  }
  function runner(success, failure, userObject) {
    return new Proxy(
      {},
      {
        get: (_target, name) => {
          if (name === 'withSuccessHandler') return (f) => runner(f, failure, userObject);
          if (name === 'withFailureHandler') return (f) => runner(success, f, userObject);
          if (name === 'withUserObject') return (o) => runner(success, failure, o);
          return (...values) => {
            const args = values.map(serialize);
            window.__gasPending = (window.__gasPending || 0) + 1;
            post('/__gas/run', { fn: String(name), args: args }).then((reply) => {
              window.__gasPending--;
              if (reply.ok) {
                if (success) success(reply.value, userObject);
              } else if (failure) {
                const err = new Error(reply.error.message);
                err.name = reply.error.name || 'ScriptError';
                failure(err, userObject);
              }
            });
          };
        },
      },
    );
  }
  window.google = {
    script: {
      run: runner(null, null, undefined),
      host: {
        origin: location.origin,
        close: () => {
          post('/__gas/host', { action: 'close' });
        },
        setHeight: () => {},
        setWidth: () => {},
        editor: { focus: () => {} },
      },
      url: {
        getLocation: (callback) => {
          callback({ hash: '', parameter: {}, parameters: {} });
        },
      },
    },
  };
})();
