(function(){
'use strict';
function key(td){var v=td.getAttribute('data-v');if(v===null)v=td.textContent;var n=parseFloat(v);return isNaN(n)||String(n)!==String(v).trim()?v.toLowerCase():n;}
document.querySelectorAll('table.sortable').forEach(function(t){
  var heads=t.tHead?t.tHead.rows[0].cells:[];
  Array.prototype.forEach.call(heads,function(th,i){
    th.title='sort';
    th.addEventListener('click',function(){
      var dir=th.getAttribute('data-dir')==='asc'?'desc':'asc';
      Array.prototype.forEach.call(heads,function(h){h.removeAttribute('data-dir');});
      th.setAttribute('data-dir',dir);
      var body=t.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]);if(x===y)return 0;var r=(typeof x===typeof y)?(x<y?-1:1):(typeof x==='number'?-1:1);return dir==='asc'?r:-r;});
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
var filter=document.getElementById('filter');
if(filter){filter.addEventListener('input',function(){
  var q=filter.value.toLowerCase();
  document.querySelectorAll('tr.verdict-row').forEach(function(r){
    var show=!q||r.textContent.toLowerCase().indexOf(q)>=0;
    r.style.display=show?'':'none';
    var sec=document.getElementById(r.getAttribute('data-section'));
    if(sec)sec.style.display=show?'':'none';
  });
});}
function openTo(id){var e=document.getElementById(id);while(e){if(e.tagName==='DETAILS')e.open=true;e=e.parentElement;}}
window.addEventListener('hashchange',function(){openTo(location.hash.slice(1));});
if(location.hash)openTo(location.hash.slice(1));
var fold=document.getElementById('fold'),unfold=document.getElementById('unfold'),clean=document.getElementById('fold-clean');
function setAll(open,only){document.querySelectorAll('details.conn').forEach(function(d){if(!only||d.getAttribute('data-verdict')===only)d.open=open;});}
if(fold)fold.addEventListener('click',function(){setAll(false);});
if(unfold)unfold.addEventListener('click',function(){setAll(true);});
if(clean)clean.addEventListener('click',function(){setAll(false,'clean');});
// #focus=ID shows one finding's detail or one connection alone (a link to share).
if(location.hash.indexOf('#focus=')===0){
  var el=document.getElementById(location.hash.slice(7));
  if(el){
    var box=document.createElement('div');box.id='focus-view';
    var back=document.createElement('p');var a=document.createElement('a');
    a.href=location.pathname;a.textContent='← the whole report';back.appendChild(a);box.appendChild(back);
    Array.prototype.forEach.call(document.body.children,function(c){if(c.tagName!=='SCRIPT'&&c.id!=='defs')c.style.display='none';});
    openTo(el.id);box.appendChild(el);document.body.insertBefore(box,document.body.firstChild);
  }
}
document.documentElement.setAttribute('data-script','ran');
})();
