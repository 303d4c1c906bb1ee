from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'base.html'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_title = resolve('title')
    l_0_page_url = resolve('page_url')
    l_0_site_name = resolve('site_name')
    l_0_description = resolve('description')
    l_0_canonical = resolve('canonical')
    l_0_og_type = resolve('og_type')
    l_0_base = resolve('base')
    l_0_static = resolve('static')
    l_0_hide_search = resolve('hide_search')
    l_0_config = resolve('config')
    try:
        t_1 = environment.filters['default']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'default' found.")
    pass
    yield '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>'
    yield escape((undefined(name='title') if l_0_title is missing else l_0_title))
    if ((undefined(name='page_url') if l_0_page_url is missing else l_0_page_url) != '/'):
        pass
        yield ' | '
        yield escape((undefined(name='site_name') if l_0_site_name is missing else l_0_site_name))
    yield '</title>\n<meta name="description" content="'
    yield escape((undefined(name='description') if l_0_description is missing else l_0_description))
    yield '">\n'
    if (undefined(name='canonical') if l_0_canonical is missing else l_0_canonical):
        pass
        yield '<link rel="canonical" href="'
        yield escape((undefined(name='canonical') if l_0_canonical is missing else l_0_canonical))
        yield '">\n'
    yield '<meta property="og:site_name" content="'
    yield escape((undefined(name='site_name') if l_0_site_name is missing else l_0_site_name))
    yield '">\n<meta property="og:title" content="'
    yield escape((undefined(name='title') if l_0_title is missing else l_0_title))
    yield '">\n<meta property="og:description" content="'
    yield escape((undefined(name='description') if l_0_description is missing else l_0_description))
    yield '">\n<meta property="og:type" content="'
    yield escape(t_1((undefined(name='og_type') if l_0_og_type is missing else l_0_og_type), 'website'))
    yield '">\n'
    if (undefined(name='canonical') if l_0_canonical is missing else l_0_canonical):
        pass
        yield '<meta property="og:url" content="'
        yield escape((undefined(name='canonical') if l_0_canonical is missing else l_0_canonical))
        yield '">\n'
    yield '<meta name="twitter:card" content="summary">\n<meta name="color-scheme" content="light dark">\n'
    if (undefined(name='base') if l_0_base is missing else l_0_base):
        pass
        yield '<meta name="site-root" content="'
        yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
        yield '/">\n'
    yield '<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns=\'http://www.w3.org/2000/svg\' viewBox=\'0 0 16 16\'%3E%3Crect width=\'16\' height=\'16\' rx=\'4\' fill=\'%231f5fd6\'/%3E%3Cpath d=\'M4 4l4 8 4-8\' stroke=\'white\' stroke-width=\'2\' fill=\'none\'/%3E%3C/svg%3E">\n<script>try{var t=localStorage.getItem("theme");if(t)document.documentElement.dataset.theme=t}catch(e){}</script>\n<link rel="stylesheet" href="'
    yield escape(environment.getitem((undefined(name='static') if l_0_static is missing else l_0_static), 'site.css'))
    yield '">\n<script src="'
    yield escape(environment.getitem((undefined(name='static') if l_0_static is missing else l_0_static), 'site.js'))
    yield '" defer></script>\n'
    yield from context.blocks['head'][0](context)
    yield '</head>\n<body>\n<a class="skip" href="#main">Skip to content</a>\n<header class="top">\n<a class="brand" href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/"><span class="logo" aria-hidden="true">v</span>vLLM <span>Recipes</span></a>\n'
    if (not (undefined(name='hide_search') if l_0_hide_search is missing else l_0_hide_search)):
        pass
        yield '<form class="top-search" role="search" action="'
        yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
        yield '/"><input type="search" name="q" data-site-search placeholder="Search models" aria-label="Search recipes" autocomplete="off"><kbd aria-hidden="true">/</kbd></form>\n'
    yield '<nav aria-label="Site"><a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/">Models</a><a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/hardware/">Hardware</a><a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/api/v1/models.json">API</a></nav>\n<button type="button" class="theme" data-theme-toggle aria-label="Dark theme" aria-pressed="false"><span aria-hidden="true">◐</span></button>\n</header>\n<main id="main" tabindex="-1">\n'
    yield from context.blocks['main'][0](context)
    yield '</main>\n<footer class="foot">\n<p>'
    if environment.getattr((undefined(name='config') if l_0_config is missing else l_0_config), 'repo_url'):
        pass
        yield '<a href="'
        yield escape(environment.getattr((undefined(name='config') if l_0_config is missing else l_0_config), 'repo_url'))
        yield '">Source</a> · <a href="'
        yield escape(context.call(environment.getattr((undefined(name='config') if l_0_config is missing else l_0_config), 'blob_url'), 'CONTRIBUTING.md'))
        yield '">Contribute a recipe</a> · <a href="'
        yield escape(context.call(environment.getattr((undefined(name='config') if l_0_config is missing else l_0_config), 'request_url')))
        yield '">Request a recipe</a> · '
    yield '<a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/api/v1/models.json">JSON API</a> · <a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/llms.txt">llms.txt</a>'
    if environment.getattr((undefined(name='config') if l_0_config is missing else l_0_config), 'published'):
        pass
        yield ' · <a href="'
        yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
        yield '/sitemap.xml">Sitemap</a>'
    yield '</p>\n</footer>\n<div class="sr-only" aria-live="polite" data-announce></div>\n</body>\n</html>'

def block_head(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass

def block_main(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass

blocks = {'head': block_head, 'main': block_main}
debug_info = '6=28&7=34&8=36&10=42&11=44&12=46&13=48&14=50&18=56&21=62&22=64&23=66&28=68&29=70&30=73&32=76&36=82&39=84&23=105&36=114'
# Generated by `python -m recipes_site.render.precompiled` from templates/base.html: do not edit.
