from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'model.html'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    pass
    parent_template = environment.get_template('base.html', 'model.html')
    for name, parent_block in parent_template.blocks.items():
        context.blocks.setdefault(name, []).append(parent_block)
    yield from parent_template.root_render_func(context)

def block_main(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_base = resolve('base')
    l_0_org = resolve('org')
    l_0_provider = resolve('provider')
    l_0_rec = resolve('rec')
    l_0_meta = resolve('meta')
    l_0_hf_url = resolve('hf_url')
    l_0_json_url = resolve('json_url')
    l_0_md_url = resolve('md_url')
    l_0_badges = resolve('badges')
    l_0_install = resolve('install')
    l_0_model = resolve('model')
    l_0_data = resolve('data')
    l_0_picker_json = resolve('picker_json')
    l_0_hw_labels = resolve('hw_labels')
    l_0_view = resolve('view')
    l_0_hw_buttons = resolve('hw_buttons')
    l_0_summary = resolve('summary')
    l_0_tv = resolve('tv')
    l_0_sv = resolve('sv')
    l_0_st = resolve('st')
    l_0_kv = resolve('kv')
    l_0_max_conc = resolve('max_conc')
    l_0_kv_missing = resolve('kv_missing')
    l_0_guide = resolve('guide')
    l_0_related = resolve('related')
    l_0_more = resolve('more')
    l_0_updated = resolve('updated')
    l_0_edit_url = resolve('edit_url')
    l_0_issue_url = resolve('issue_url')
    l_0_hw_json = resolve('hw_json')
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_2 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_3 = environment.filters['safe']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'safe' found.")
    try:
        t_4 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '<nav class="crumbs" aria-label="Breadcrumb"><a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/">Models</a> / <a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/'
    yield escape((undefined(name='org') if l_0_org is missing else l_0_org))
    yield '/">'
    yield escape((undefined(name='provider') if l_0_provider is missing else l_0_provider))
    yield '</a> / <span aria-current="page">'
    yield escape(environment.getitem(context.call(environment.getattr(environment.getattr((undefined(name='rec') if l_0_rec is missing else l_0_rec), 'hf_id'), 'split'), '/', 1, _block_vars=_block_vars), 1))
    yield '</span></nav>\n<header class="model-head">\n<h1>'
    yield escape((environment.getattr((undefined(name='meta') if l_0_meta is missing else l_0_meta), 'title') or environment.getattr((undefined(name='rec') if l_0_rec is missing else l_0_rec), 'hf_id')))
    yield '</h1>\n<p class="hfid"><code>'
    yield escape(environment.getattr((undefined(name='rec') if l_0_rec is missing else l_0_rec), 'hf_id'))
    yield '</code> by <a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/'
    yield escape((undefined(name='org') if l_0_org is missing else l_0_org))
    yield '/">'
    yield escape((undefined(name='provider') if l_0_provider is missing else l_0_provider))
    yield '</a> · <a href="'
    yield escape((undefined(name='hf_url') if l_0_hf_url is missing else l_0_hf_url))
    yield '" rel="noopener">Hugging Face</a> · <a href="'
    yield escape((undefined(name='json_url') if l_0_json_url is missing else l_0_json_url))
    yield '">JSON</a> · <a href="'
    yield escape((undefined(name='md_url') if l_0_md_url is missing else l_0_md_url))
    yield '">Markdown</a></p>\n'
    if environment.getattr((undefined(name='meta') if l_0_meta is missing else l_0_meta), 'description'):
        pass
        yield '<p class="lede">'
        yield escape(environment.getattr((undefined(name='meta') if l_0_meta is missing else l_0_meta), 'description'))
        yield '</p>'
    if environment.getattr((undefined(name='meta') if l_0_meta is missing else l_0_meta), 'performance_headline'):
        pass
        yield '<p class="headline">'
        yield escape(environment.getattr((undefined(name='meta') if l_0_meta is missing else l_0_meta), 'performance_headline'))
        yield '</p>'
    yield '<ul class="badges" aria-label="Model facts">'
    for (l_1_kind, l_1_text) in (undefined(name='badges') if l_0_badges is missing else l_0_badges):
        _loop_vars = {}
        pass
        yield '<li class="b-'
        yield escape(l_1_kind)
        yield '">'
        yield escape(l_1_text)
        yield '</li>'
    l_1_kind = l_1_text = missing
    yield '</ul>\n</header>\n'
    if (environment.getattr((undefined(name='install') if l_0_install is missing else l_0_install), 'pip') or environment.getattr((undefined(name='install') if l_0_install is missing else l_0_install), 'docker')):
        pass
        yield '<details id="install" class="panel install"'
        if environment.getattr((undefined(name='install') if l_0_install is missing else l_0_install), 'extras'):
            pass
            yield ' open'
        yield '>\n<summary><h2 id="install-h">Install</h2> <span class="hint">'
        if environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'min_vllm_version'):
            pass
            yield 'vLLM '
            yield escape(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'min_vllm_version'))
            yield '+ · '
        if environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'nightly_required'):
            pass
            yield 'nightly · '
        yield 'pip or Docker'
        if environment.getattr((undefined(name='install') if l_0_install is missing else l_0_install), 'extras'):
            pass
            yield ' · extra dependencies'
        yield '</span></summary>\n<div class="tabs" role="tablist" aria-label="Install method">\n'
        def t_5(fiter):
            for (l_1_key, l_1_label) in fiter:
                if environment.getitem((undefined(name='install') if l_0_install is missing else l_0_install), l_1_key):
                    yield (l_1_key, l_1_label)
        l_1_loop = missing
        for (l_1_key, l_1_label), l_1_loop in LoopContext(t_5([('pip', 'pip / uv'), ('docker', 'Docker')]), undefined):
            _loop_vars = {}
            pass
            yield '<button type="button" role="tab" id="inst-'
            yield escape(l_1_key)
            yield '" data-install="'
            yield escape(l_1_key)
            yield '" aria-controls="inst-'
            yield escape(l_1_key)
            yield '-p" aria-selected="'
            yield escape(('true' if environment.getattr(l_1_loop, 'first') else 'false'))
            yield '" tabindex="'
            yield escape((0 if environment.getattr(l_1_loop, 'first') else -1))
            yield '">'
            yield escape(l_1_label)
            yield '</button>\n'
        l_1_loop = l_1_key = l_1_label = missing
        yield '</div>\n'
        def t_6(fiter):
            for l_1_key in fiter:
                if environment.getitem((undefined(name='install') if l_0_install is missing else l_0_install), l_1_key):
                    yield l_1_key
        l_1_loop = missing
        for l_1_key, l_1_loop in LoopContext(t_6(['pip', 'docker']), undefined):
            _loop_vars = {}
            pass
            yield '<div role="tabpanel" id="inst-'
            yield escape(l_1_key)
            yield '-p" aria-labelledby="inst-'
            yield escape(l_1_key)
            yield '"'
            if (not environment.getattr(l_1_loop, 'first')):
                pass
                yield ' hidden'
            yield '>\n<div class="code"><pre id="inst-'
            yield escape(l_1_key)
            yield '-cmd" tabindex="0">'
            yield escape(environment.getattr(environment.getitem((undefined(name='install') if l_0_install is missing else l_0_install), l_1_key), 'command'))
            yield '</pre><button type="button" class="copy" data-copy-from="inst-'
            yield escape(l_1_key)
            yield '-cmd">Copy</button></div>\n'
            if environment.getattr(environment.getitem((undefined(name='install') if l_0_install is missing else l_0_install), l_1_key), 'note'):
                pass
                yield '<p class="note">'
                yield escape(environment.getattr(environment.getitem((undefined(name='install') if l_0_install is missing else l_0_install), l_1_key), 'note'))
                yield '</p>'
            yield '</div>\n'
        l_1_loop = l_1_key = missing
        if environment.getattr((undefined(name='install') if l_0_install is missing else l_0_install), 'extras'):
            pass
            yield '<h3>Extra dependencies</h3>\n<ul class="deps">\n'
            for l_1_e in environment.getattr((undefined(name='install') if l_0_install is missing else l_0_install), 'extras'):
                _loop_vars = {}
                pass
                yield '<li'
                if environment.getattr(l_1_e, 'optional'):
                    pass
                    yield ' class="optional"'
                yield '><p>'
                if environment.getattr(l_1_e, 'optional'):
                    pass
                    yield '<span class="tag">optional</span> '
                if environment.getattr(l_1_e, 'brand'):
                    pass
                    yield '<span class="tag">'
                    yield escape(environment.getattr(l_1_e, 'brand'))
                    yield ' only</span> '
                if environment.getattr(l_1_e, 'modes'):
                    pass
                    yield '<span class="tag">'
                    yield escape(t_1(context.eval_ctx, environment.getattr(l_1_e, 'modes'), ', '))
                    yield '</span> '
                yield escape(environment.getattr(l_1_e, 'note'))
                yield '</p><pre tabindex="0">'
                yield escape(environment.getattr(l_1_e, 'command'))
                yield '</pre></li>\n'
            l_1_e = missing
            yield '</ul>\n'
            if environment.getattr((undefined(name='install') if l_0_install is missing else l_0_install), 'required'):
                pass
                yield '<button type="button" class="copy" data-copy-text="'
                yield escape(environment.getattr((undefined(name='install') if l_0_install is missing else l_0_install), 'required'))
                yield '">Copy required dependencies</button>'
        yield '</details>\n'
    if (undefined(name='data') if l_0_data is missing else l_0_data):
        pass
        yield '<section id="serve" class="panel picker" data-picker aria-labelledby="serve-h">\n<h2 id="serve-h">Serve</h2>\n<script type="application/json" id="picker-data">'
        yield escape((undefined(name='picker_json') if l_0_picker_json is missing else l_0_picker_json))
        yield '</script>\n<noscript><p class="note">Showing the recommended command for '
        yield escape(environment.getitem((undefined(name='hw_labels') if l_0_hw_labels is missing else l_0_hw_labels), environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'hardware')))
        yield '. Turn on JavaScript to choose other hardware, variants and strategies, or read every rendering from the <a href="'
        yield escape((undefined(name='json_url') if l_0_json_url is missing else l_0_json_url))
        yield '">JSON API</a>.</p></noscript>\n<div class="axis"><span class="axis-label" id="ax-hardware">Hardware</span>\n<div role="radiogroup" aria-labelledby="ax-hardware" data-axis="hardware" class="opts hw-opts">\n'
        for (l_1_brand, l_1_buttons) in (undefined(name='hw_buttons') if l_0_hw_buttons is missing else l_0_hw_buttons):
            _loop_vars = {}
            pass
            yield '<div class="hw-brand"><span class="brand-name">'
            yield escape(l_1_brand)
            yield '</span>\n'
            for (l_2_h, l_2_label, l_2_specs, l_2_verified, l_2_checked, l_2_offered, l_2_reason) in l_1_buttons:
                _loop_vars = {}
                pass
                yield '<button type="button" class="opt" role="radio" data-value="'
                yield escape(l_2_h)
                yield '" '
                if l_2_checked:
                    pass
                    yield 'aria-checked="true" tabindex="0"'
                else:
                    pass
                    yield 'aria-checked="false" tabindex="-1"'
                if (not l_2_offered):
                    pass
                    yield ' aria-disabled="true" title="'
                    yield escape(l_2_reason)
                    yield '"'
                yield '><b>'
                yield escape(l_2_label)
                yield '</b><small>'
                yield escape(l_2_specs)
                yield '</small>'
                if l_2_verified:
                    pass
                    yield '<i class="ok"><span class="sr-only">verified</span></i>'
                yield '</button>\n'
            l_2_h = l_2_label = l_2_specs = l_2_verified = l_2_checked = l_2_offered = l_2_reason = missing
            yield '</div>\n'
        l_1_brand = l_1_buttons = missing
        yield '</div>\n<p class="hint" data-hw-hint><i class="ok"></i> verified by the recipe\'s authors · dimmed: not offered for this variant (hover or focus one for the reason)</p></div>\n<div class="axis"><span class="axis-label" id="ax-variant">Variant</span>\n<div role="radiogroup" aria-labelledby="ax-variant" data-axis="variant" class="opts">\n'
        for (l_1_key, l_1_v) in context.call(environment.getattr(environment.getattr((undefined(name='summary') if l_0_summary is missing else l_0_summary), 'variants'), 'items'), _block_vars=_block_vars):
            l_1_on = missing
            _loop_vars = {}
            pass
            l_1_on = (l_1_key == environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'variant'))
            _loop_vars['on'] = l_1_on
            yield '<button type="button" class="opt" role="radio" data-value="'
            yield escape(l_1_key)
            yield '" aria-checked="'
            yield escape(('true' if (undefined(name='on') if l_1_on is missing else l_1_on) else 'false'))
            yield '" tabindex="'
            yield escape((0 if (undefined(name='on') if l_1_on is missing else l_1_on) else -1))
            yield '"><b>'
            yield escape(environment.getattr(l_1_v, 'label'))
            yield '</b></button>\n'
        l_1_key = l_1_v = l_1_on = missing
        yield '</div>\n'
        l_0_tv = environment.getitem(environment.getattr((undefined(name='summary') if l_0_summary is missing else l_0_summary), 'variants'), environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'variant'))
        _block_vars['tv'] = l_0_tv
        l_0_sv = (environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'served') or (undefined(name='tv') if l_0_tv is missing else l_0_tv))
        _block_vars['sv'] = l_0_sv
        yield '<p class="hint" data-variant-note>'
        if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'served'):
            pass
            yield '<span class="warn">'
            yield escape(environment.getattr((undefined(name='tv') if l_0_tv is missing else l_0_tv), 'label'))
            yield ' does not run on '
            yield escape(environment.getitem((undefined(name='hw_labels') if l_0_hw_labels is missing else l_0_hw_labels), environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'hardware')))
            yield ': this command serves '
            yield escape(environment.getattr((undefined(name='sv') if l_0_sv is missing else l_0_sv), 'label'))
            yield '.</span> '
        yield escape(environment.getattr((undefined(name='sv') if l_0_sv is missing else l_0_sv), 'description'))
        if environment.getattr((undefined(name='sv') if l_0_sv is missing else l_0_sv), 'description'):
            pass
            yield ' · '
        yield '<a href="https://huggingface.co/'
        yield escape(environment.getattr((undefined(name='sv') if l_0_sv is missing else l_0_sv), 'model_id'))
        yield '" rel="noopener">'
        yield escape(environment.getattr((undefined(name='sv') if l_0_sv is missing else l_0_sv), 'model_id'))
        yield '</a></p></div>\n<div class="axis"><span class="axis-label" id="ax-strategy">Strategy</span>\n<div role="radiogroup" aria-labelledby="ax-strategy" data-axis="strategy" class="opts">\n'
        for l_1_s in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'strategies'):
            l_1_on = missing
            _loop_vars = {}
            pass
            l_1_on = (l_1_s == environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'rendering'), 'strategy'))
            _loop_vars['on'] = l_1_on
            yield '<button type="button" class="opt" role="radio" data-value="'
            yield escape(l_1_s)
            yield '" aria-checked="'
            yield escape(('true' if (undefined(name='on') if l_1_on is missing else l_1_on) else 'false'))
            yield '" tabindex="'
            yield escape((0 if (undefined(name='on') if l_1_on is missing else l_1_on) else -1))
            yield '"><b>'
            yield escape((environment.getattr(environment.getitem(environment.getattr((undefined(name='summary') if l_0_summary is missing else l_0_summary), 'strategies'), l_1_s), 'label') if (l_1_s in environment.getattr((undefined(name='summary') if l_0_summary is missing else l_0_summary), 'strategies')) else l_1_s))
            yield '</b>'
            if (l_1_s == environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'recommended')):
                pass
                yield '<small class="rec">recommended</small>'
            yield '</button>\n'
        l_1_s = l_1_on = missing
        yield '</div>\n'
        l_0_st = context.call(environment.getattr(environment.getattr((undefined(name='summary') if l_0_summary is missing else l_0_summary), 'strategies'), 'get'), environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'rendering'), 'strategy'), {}, _block_vars=_block_vars)
        _block_vars['st'] = l_0_st
        yield '<p class="hint" data-strategy-note>'
        if environment.getattr((undefined(name='st') if l_0_st is missing else l_0_st), 'orientation'):
            pass
            yield '<span class="tag">'
            yield escape(environment.getattr((undefined(name='st') if l_0_st is missing else l_0_st), 'orientation'))
            yield '</span> '
        yield escape(context.call(environment.getattr(environment.getattr((undefined(name='data') if l_0_data is missing else l_0_data), 'notes'), 'get'), environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'rendering'), 'strategy'), '', _block_vars=_block_vars))
        yield '</p></div>\n<div class="axis"><span class="axis-label" id="ax-nodes">Nodes</span>\n<div role="radiogroup" aria-labelledby="ax-nodes" data-axis="nodes" class="opts">\n'
        for (l_1_n, l_1_name, l_1_small) in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'node_pills'):
            l_1_on = missing
            _loop_vars = {}
            pass
            l_1_on = (l_1_n == environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'node_count'))
            _loop_vars['on'] = l_1_on
            yield '<button type="button" class="opt" role="radio" data-value="'
            yield escape(l_1_n)
            yield '" aria-checked="'
            yield escape(('true' if (undefined(name='on') if l_1_on is missing else l_1_on) else 'false'))
            yield '" tabindex="'
            yield escape((0 if (undefined(name='on') if l_1_on is missing else l_1_on) else -1))
            yield '"><b>'
            yield escape(l_1_name)
            yield '</b><small>'
            yield escape(l_1_small)
            yield '</small></button>\n'
        l_1_n = l_1_name = l_1_small = l_1_on = missing
        yield '</div></div>\n<div class="axis"><span class="axis-label">Features</span>\n<div class="feats" data-features>\n'
        t_7 = 1
        for l_1_f in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'features'):
            l_1_on = missing
            _loop_vars = {}
            pass
            l_1_on = (environment.getattr(l_1_f, 'name') in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'features_on'))
            _loop_vars['on'] = l_1_on
            yield '<div class="feat"><label title="'
            yield escape(environment.getattr(l_1_f, 'description'))
            yield '"><input type="checkbox" data-feature="'
            yield escape(environment.getattr(l_1_f, 'name'))
            yield '"'
            if (undefined(name='on') if l_1_on is missing else l_1_on):
                pass
                yield ' checked'
            if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'locked'):
                pass
                yield ' disabled'
            yield '> '
            yield escape(environment.getattr(l_1_f, 'label'))
            yield '</label>\n'
            if environment.getattr(l_1_f, 'modes'):
                pass
                yield '<select data-feature-mode="'
                yield escape(environment.getattr(l_1_f, 'name'))
                yield '" aria-label="'
                yield escape(environment.getattr(l_1_f, 'label'))
                yield ' mode"'
                if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'locked'):
                    pass
                    yield ' disabled'
                yield '>'
                for l_2_m in environment.getattr(l_1_f, 'modes'):
                    _loop_vars = {}
                    pass
                    yield '<option value="'
                    yield escape(environment.getattr(l_2_m, 'name'))
                    yield '"'
                    if (context.call(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'features_on'), 'get'), environment.getattr(l_1_f, 'name'), _loop_vars=_loop_vars) == environment.getattr(l_2_m, 'name')):
                        pass
                        yield ' selected'
                    yield '>'
                    yield escape(environment.getattr(l_2_m, 'label'))
                    yield '</option>'
                l_2_m = missing
                yield '</select>'
            yield '</div>\n'
            t_7 = 0
        l_1_f = l_1_on = missing
        if t_7:
            pass
            yield '<p class="hint">No optional features for this choice.</p>\n'
        yield '</div>\n<p class="hint" data-locked'
        if (not environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'locked')):
            pass
            yield ' hidden'
        yield '>Features are fixed for this layout: its command sets these flags elsewhere.</p>\n</div>\n<div class="card" data-command-card>\n<div class="card-head"><span class="sum" data-summary>'
        yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'parts'), 'summary'))
        yield '</span> <span class="verified" data-verified'
        if (not environment.getattr(environment.getitem(environment.getattr((undefined(name='summary') if l_0_summary is missing else l_0_summary), 'hardware'), environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'hardware')), 'verified')):
            pass
            yield ' hidden'
        yield '>Verified on '
        yield escape(environment.getattr(environment.getitem(environment.getattr((undefined(name='summary') if l_0_summary is missing else l_0_summary), 'hardware'), environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'hardware')), 'label'))
        yield '</span>\n<span class="forms" role="group" aria-label="Command form"><button type="button" data-form="serve" aria-pressed="true">vllm serve</button><button type="button" data-form="docker" aria-pressed="false">docker run</button></span></div>\n<div class="tabs ptabs" role="tablist" aria-label="Processes to start" data-process-tabs'
        if (t_2(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tabs')) < 2):
            pass
            yield ' hidden'
        yield '>\n'
        if (t_2(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tabs')) > 1):
            pass
            for l_1_t in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tabs'):
                l_1_on = missing
                _loop_vars = {}
                pass
                l_1_on = (environment.getattr(l_1_t, 'id') == environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tab'))
                _loop_vars['on'] = l_1_on
                yield '<button type="button" role="tab" id="tab-'
                yield escape(environment.getattr(l_1_t, 'id'))
                yield '" data-process="'
                yield escape(environment.getattr(l_1_t, 'id'))
                yield '" aria-controls="command-panel" aria-selected="'
                yield escape(('true' if (undefined(name='on') if l_1_on is missing else l_1_on) else 'false'))
                yield '" tabindex="'
                yield escape((0 if (undefined(name='on') if l_1_on is missing else l_1_on) else -1))
                yield '">'
                yield escape(environment.getattr(l_1_t, 'label'))
                yield '</button>\n'
            l_1_t = l_1_on = missing
        yield '</div>\n<p class="warn" data-plan-warning role="note"'
        if environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sizing'), 'ok'):
            pass
            yield ' hidden'
        yield '>'
        if (not environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sizing'), 'ok')):
            pass
            yield 'This command cannot start here: '
            yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sizing'), 'why'))
        yield '</p>\n<div role="tabpanel" id="command-panel"'
        if (t_2(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tabs')) > 1):
            pass
            yield ' aria-labelledby="tab-'
            yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tab'))
            yield '"'
        else:
            pass
            yield ' aria-label="Command"'
        yield '><pre data-command tabindex="0">'
        yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'command'))
        yield '</pre></div>\n<p class="error" data-picker-error role="alert" hidden></p>\n<div class="card-foot"><button type="button" class="copy" data-copy>Copy</button><span class="status" data-copy-status role="status" aria-live="polite"></span></div>\n</div>\n<section class="sizing" data-sizing aria-labelledby="sizing-h">\n<h3 id="sizing-h">Memory on <span data-sizing-hw>'
        yield escape(environment.getitem((undefined(name='hw_labels') if l_0_hw_labels is missing else l_0_hw_labels), environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'hardware')))
        yield '</span></h3>\n<dl data-sizing-facts>'
        for (l_1_k, l_1_v) in environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sizing'), 'facts'):
            _loop_vars = {}
            pass
            yield '<div><dt>'
            yield escape(l_1_k)
            yield '</dt><dd>'
            yield escape(l_1_v)
            yield '</dd></div>'
        l_1_k = l_1_v = missing
        yield '</dl>\n<p data-sizing-why class="'
        yield escape(('fits' if environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sizing'), 'ok') else 'over'))
        yield '">'
        yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sizing'), 'why'))
        yield '</p>\n'
        if environment.getattr((undefined(name='summary') if l_0_summary is missing else l_0_summary), 'kv'):
            pass
            l_0_kv = environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'kv')
            _block_vars['kv'] = l_0_kv
            yield '<div class="kv" data-kv>\n<div class="kv-in">\n<label>Request length <input type="number" data-kv-len inputmode="numeric" min="1" max="'
            yield escape((environment.getattr((undefined(name='kv') if l_0_kv is missing else l_0_kv), 'cap') if (undefined(name='kv') if l_0_kv is missing else l_0_kv) else ''))
            yield '" value="'
            yield escape((environment.getattr((undefined(name='kv') if l_0_kv is missing else l_0_kv), 'len') if (undefined(name='kv') if l_0_kv is missing else l_0_kv) else ''))
            yield '"> <small>tokens</small></label>\n<label>Concurrent requests <input type="number" data-kv-conc inputmode="numeric" min="1" max="'
            yield escape((undefined(name='max_conc') if l_0_max_conc is missing else l_0_max_conc))
            yield '" value="'
            yield escape((environment.getattr((undefined(name='kv') if l_0_kv is missing else l_0_kv), 'conc') if (undefined(name='kv') if l_0_kv is missing else l_0_kv) else 1))
            yield '"></label>\n</div>\n<div class="mbar" data-kv-bar role="img" aria-label="'
            yield escape((environment.getattr((undefined(name='kv') if l_0_kv is missing else l_0_kv), 'aria') if (undefined(name='kv') if l_0_kv is missing else l_0_kv) else ''))
            yield '">'
            for (l_1_key, l_1_text, l_1_width) in (environment.getattr((undefined(name='kv') if l_0_kv is missing else l_0_kv), 'parts') if (undefined(name='kv') if l_0_kv is missing else l_0_kv) else []):
                _loop_vars = {}
                pass
                yield '<span class="m-'
                yield escape(l_1_key)
                yield '" data-part="'
                yield escape(l_1_key)
                yield '" style="width:'
                yield escape(l_1_width)
                yield '"></span>'
            l_1_key = l_1_text = l_1_width = missing
            yield '</div>\n<ul class="legend" data-kv-legend>'
            for (l_1_key, l_1_text, l_1_width) in (environment.getattr((undefined(name='kv') if l_0_kv is missing else l_0_kv), 'parts') if (undefined(name='kv') if l_0_kv is missing else l_0_kv) else []):
                _loop_vars = {}
                pass
                yield '<li class="m-'
                yield escape(l_1_key)
                yield '">'
                yield escape(l_1_text)
                yield '</li>'
            l_1_key = l_1_text = l_1_width = missing
            yield '</ul>\n<dl data-kv-facts>'
            for (l_1_k, l_1_v) in (environment.getattr((undefined(name='kv') if l_0_kv is missing else l_0_kv), 'facts') if (undefined(name='kv') if l_0_kv is missing else l_0_kv) else []):
                _loop_vars = {}
                pass
                yield '<div><dt>'
                yield escape(l_1_k)
                yield '</dt><dd>'
                yield escape(l_1_v)
                yield '</dd></div>'
            l_1_k = l_1_v = missing
            yield '</dl>\n<p data-kv-verdict'
            if ((undefined(name='kv') if l_0_kv is missing else l_0_kv) and (not t_4(environment.getattr((undefined(name='kv') if l_0_kv is missing else l_0_kv), 'ok')))):
                pass
                yield ' class="'
                yield escape(('fits' if environment.getattr((undefined(name='kv') if l_0_kv is missing else l_0_kv), 'ok') else 'over'))
                yield '"'
            yield '>'
            yield escape((environment.getattr((undefined(name='kv') if l_0_kv is missing else l_0_kv), 'verdict') if (undefined(name='kv') if l_0_kv is missing else l_0_kv) else ''))
            yield '</p>\n<p class="hint">Per GPU of this command: the budget is the memory times <code>--gpu-memory-utilization</code>; what weights and overhead leave is KV cache, which every token of every running request uses. Figures from <code>recipes-site fit</code>; every rendering\'s <code>plan</code> in the API hardware documents has them.</p>\n</div>\n'
        else:
            pass
            yield '<p class="hint" data-kv-missing>Weights only: the KV cache needs memory on top, more for long contexts and large batches. Sizing it needs these facts from the model\'s <code>config.json</code> in <code>model.hf_config</code>: '
            yield escape(t_1(context.eval_ctx, (undefined(name='kv_missing') if l_0_kv_missing is missing else l_0_kv_missing), '; '))
            yield '.</p>\n'
        yield '<div class="plan" data-plan>\n<h4>Throughput plan</h4>\n<p data-plan-sum>'
        yield escape((environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'plan'), 'summary') if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'plan') else ''))
        yield '</p>\n<div data-plan-cmds>'
        l_1_loop = missing
        for (l_1_id, l_1_caption, l_1_command), l_1_loop in LoopContext((environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'plan'), 'commands') if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'plan') else []), undefined):
            _loop_vars = {}
            pass
            yield '<p class="hint">'
            yield escape(l_1_caption)
            yield '</p><div class="code"><pre id="'
            yield escape(l_1_id)
            yield '" tabindex="0">'
            yield escape(l_1_command)
            yield '</pre><button type="button" class="copy" data-copy-from="'
            yield escape(l_1_id)
            yield '" aria-label="Copy the command of replica '
            yield escape(environment.getattr(l_1_loop, 'index0'))
            yield '">Copy</button></div>'
        l_1_loop = l_1_id = l_1_caption = l_1_command = missing
        yield '</div>\n</div>\n</section>\n</section>\n'
    else:
        pass
        yield '<section id="serve" class="panel"><h2>Serve</h2><p class="note">'
        if ('omni' in (environment.getattr((undefined(name='meta') if l_0_meta is missing else l_0_meta), 'tasks') or [])):
            pass
            yield 'This model runs under vLLM-Omni, which this site does not generate commands for yet; the guide below explains how to serve it.'
        else:
            pass
            yield 'No hardware profile can serve this recipe as written.'
        yield '</p></section>\n'
    if environment.getattr((undefined(name='guide') if l_0_guide is missing else l_0_guide), 'html'):
        pass
        yield '<section id="guide" class="panel" aria-labelledby="guide-h">\n<h2 id="guide-h">Guide</h2>\n'
        if (t_2(environment.getattr((undefined(name='guide') if l_0_guide is missing else l_0_guide), 'toc')) > 2):
            pass
            yield '<nav class="toc" aria-label="Guide contents"><ol>'
            for (l_1_level, l_1_id, l_1_text) in environment.getattr((undefined(name='guide') if l_0_guide is missing else l_0_guide), 'toc'):
                _loop_vars = {}
                pass
                yield '<li><a href="#'
                yield escape(l_1_id)
                yield '">'
                yield escape(l_1_text)
                yield '</a></li>'
            l_1_level = l_1_id = l_1_text = missing
            yield '</ol></nav>'
        yield '<div class="prose">'
        yield escape(t_3(environment.getattr((undefined(name='guide') if l_0_guide is missing else l_0_guide), 'html')))
        yield '</div>\n</section>\n'
    yield '<section id="about" class="panel about" aria-label="About this recipe">\n'
    if (undefined(name='related') if l_0_related is missing else l_0_related):
        pass
        yield '<h2>Related</h2><ul class="chips">'
        for (l_1_id, l_1_title) in (undefined(name='related') if l_0_related is missing else l_0_related):
            _loop_vars = {}
            pass
            yield '<li><a href="'
            yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
            yield '/'
            yield escape(l_1_id)
            yield '/">'
            yield escape(l_1_title)
            yield '</a></li>'
        l_1_id = l_1_title = missing
        yield '</ul>'
    if (undefined(name='more') if l_0_more is missing else l_0_more):
        pass
        yield '<h2>More from '
        yield escape((undefined(name='provider') if l_0_provider is missing else l_0_provider))
        yield '</h2><ul class="chips">'
        for (l_1_id, l_1_title) in (undefined(name='more') if l_0_more is missing else l_0_more):
            _loop_vars = {}
            pass
            yield '<li><a href="'
            yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
            yield '/'
            yield escape(l_1_id)
            yield '/">'
            yield escape(l_1_title)
            yield '</a></li>'
        l_1_id = l_1_title = missing
        yield '</ul>'
    yield '<p class="meta">'
    if (undefined(name='updated') if l_0_updated is missing else l_0_updated):
        pass
        yield 'Updated <time datetime="'
        yield escape((undefined(name='updated') if l_0_updated is missing else l_0_updated))
        yield '">'
        yield escape((undefined(name='updated') if l_0_updated is missing else l_0_updated))
        yield '</time> · '
    if (undefined(name='edit_url') if l_0_edit_url is missing else l_0_edit_url):
        pass
        yield '<a href="'
        yield escape((undefined(name='edit_url') if l_0_edit_url is missing else l_0_edit_url))
        yield '" rel="noopener">Edit this recipe</a> · <a href="'
        yield escape((undefined(name='issue_url') if l_0_issue_url is missing else l_0_issue_url))
        yield '" rel="noopener">Report a problem</a>'
    if ((undefined(name='edit_url') if l_0_edit_url is missing else l_0_edit_url) and (undefined(name='hw_json') if l_0_hw_json is missing else l_0_hw_json)):
        pass
        yield ' · '
    if (undefined(name='hw_json') if l_0_hw_json is missing else l_0_hw_json):
        pass
        yield 'JSON per hardware: '
        for (l_1_later, l_1_u, l_1_label) in (undefined(name='hw_json') if l_0_hw_json is missing else l_0_hw_json):
            _loop_vars = {}
            pass
            if l_1_later:
                pass
                yield ', '
            yield '<a href="'
            yield escape(l_1_u)
            yield '">'
            yield escape(l_1_label)
            yield '</a>'
        l_1_later = l_1_u = l_1_label = missing
    yield '</p>\n</section>\n'

blocks = {'main': block_main}
debug_info = '1=12&2=17&3=80&5=90&6=92&7=106&8=111&9=117&11=127&12=130&13=134&15=147&16=156&19=170&20=179&21=187&22=193&25=200&28=203&29=207&32=230&36=236&39=239&40=241&43=245&44=249&45=251&46=255&54=281&55=288&58=298&59=300&60=303&63=321&64=328&67=342&68=345&71=352&72=359&77=372&78=379&79=392&84=424&87=428&89=436&90=440&91=449&94=461&95=470&100=481&101=483&102=493&103=497&106=502&107=506&109=510&110=524&111=534&112=544&116=555&120=558&121=561&126=580&128=587&131=590&132=604&136=607&137=622&138=640'
# Generated by `python -m recipes_site.render.precompiled` from templates/model.html: do not edit.
